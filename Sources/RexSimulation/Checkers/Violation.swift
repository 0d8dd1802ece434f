/// One broken promise a checker found in a run's history.
struct Violation: CustomStringConvertible, Equatable {
    /// The checker: `durability`, `convergence`, `membership`, `keep-set`, `liveness`.
    let checker: String
    let message: String

    var description: String { "[\(checker)] \(message)" }
}
