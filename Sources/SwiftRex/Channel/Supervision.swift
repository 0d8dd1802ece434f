/// The channels that should be alive for a given state.
public typealias Keep<Action: Sendable> = [Channel<Action>]

/// A reader from the environment to the channels a state keeps alive.
///
/// `supervise { state in Supervision { env in … } }` declares, for each state, which channels
/// must run; the store evaluates it after every batch of actions that mutated state and lets the
/// engine reconcile. Supervisions combine by concatenating their channels.
public struct Supervision<Action: Sendable, Environment>: Sendable {
    let run: @Sendable (Environment) -> Keep<Action>

    /// A supervision computed from the environment.
    public init(_ run: @escaping @Sendable (Environment) -> Keep<Action>) {
        self.run = run
    }

    /// Resolves the channels for `environment`.
    public func callAsFunction(_ environment: Environment) -> Keep<Action> { run(environment) }

    /// Keeps nothing.
    public static var empty: Supervision { Supervision { _ in [] } }

    /// Both supervisions' channels, `lhs` first.
    public static func combine(_ lhs: Supervision, _ rhs: Supervision) -> Supervision {
        Supervision { env in lhs.run(env) + rhs.run(env) }
    }
}
