/// Why an authority file (a key, a statement, a node's ledger) cannot be used: one sentence
/// saying what is wrong and, where there is one, what fixes it (without the path, which the
/// caller adds).
public struct AuthorityFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
