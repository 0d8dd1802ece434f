public import RexControl

/// A set of keys an operator adds to and removes from — a node's feeds, follows or peers — with
/// the limit on how many it may hold.
///
/// The one statement of a limit's rule ("a new key past the limit is refused; a key it holds
/// is not new"), read by the reducer, the admission of the control endpoint and the durable
/// fold alike.
public struct OperatorResource<State>: Sendable {
    /// What the keys are, plural, for messages: "feeds".
    public let noun: String
    /// How a node has them, for messages: "holds", "knows".
    public let verb: String
    /// The command-line flag that sets the limit, for messages.
    public let limitFlag: String
    /// Whether the durable fold remembers a removal: true where a removed key could come back
    /// from elsewhere at start (a configured peer an operator removed stays removed).
    public let keepsRemovals: Bool
    package let limit: @Sendable (NodeLimits) -> Int
    package let count: @Sendable (State) -> Int
    let contains: @Sendable (State, String) -> Bool
    /// Every key the state holds (the admission ledger starts from them).
    package let keys: @Sendable (State) -> [String]
    /// Keys that enter the state other than through operator actions (the membership's
    /// members), counted by the admission ledger before it admits a new key.
    package let keysFromElsewhere: (@Sendable (State) -> [String])?

    /// A resource: its names in messages, whether its removals outlive a restart, its limit, and how to count, find
    /// and list its keys in a state.
    public init(
        noun: String, verb: String, limitFlag: String, keepsRemovals: Bool = false,
        limit: @escaping @Sendable (NodeLimits) -> Int, count: @escaping @Sendable (State) -> Int,
        contains: @escaping @Sendable (State, String) -> Bool, keys: @escaping @Sendable (State) -> [String],
        keysFromElsewhere: (@Sendable (State) -> [String])? = nil
    ) {
        self.noun = noun
        self.verb = verb
        self.limitFlag = limitFlag
        self.keepsRemovals = keepsRemovals
        self.limit = limit
        self.count = count
        self.contains = contains
        self.keys = keys
        self.keysFromElsewhere = keysFromElsewhere
    }

    /// Whether `state` may take `key` within `limits`: it holds it already, or holds fewer
    /// than the limit.
    public func hasRoom(for key: String, in state: State, limits: NodeLimits) -> Bool {
        contains(state, key) || count(state) < limit(limits)
    }

    /// The refusal of a new key past the limit.
    package func limitReached(node: String, limits: NodeLimits) -> ControlError {
        ControlError(.limitReached, "node \(node) \(verb) \(limit(limits)) \(noun), its limit (\(limitFlag))")
    }
}
