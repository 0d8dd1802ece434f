/// An action an operator may dispatch to a node: the `action` of a `dispatch` request.
///
/// ```json
/// {"type": "follow", "name": "prices", "topic": "eu.*", "from": "n2"}
/// ```
///
/// Decoding checks the form (the `type`, each field present and a string) and throws a
/// ``ControlError`` saying what is wrong; the node then checks the values against its limits.
/// A node maps each case to its own action type.
public enum OperatorAction: Sendable, Equatable {
    /// The feed `topic` holds `value` (published: deduplicated, throttled, the last value always sent).
    case set(topic: String, value: String)
    /// The feed `topic` stops existing.
    case unset(topic: String)
    /// Subscribe under `name`; a topic ending in `*` is a prefix. With `from`, only that peer's
    /// messages, over a socket of its own. (An empty `from` is none.)
    case follow(name: String, topic: String, from: String?)
    /// The follow `name` ends.
    case unfollow(name: String)
    /// Send one message now (not deduplicated).
    case publish(topic: String, payload: String)
    /// Connect to that peer's PUB endpoint.
    case addPeer(id: String, endpoint: String)
    /// Disconnect from peer `id`.
    case removePeer(id: String)

    /// The action's `type`, as the protocol spells it.
    public enum Kind: String, Sendable, CaseIterable {
        case set, unset, follow, unfollow, publish, addPeer, removePeer

        /// `set, unset, …`, for messages.
        static var list: String { allCases.map(\.rawValue).joined(separator: ", ") }
    }

    public var kind: Kind {
        switch self {
        case .set: .set
        case .unset: .unset
        case .follow: .follow
        case .unfollow: .unfollow
        case .publish: .publish
        case .addPeer: .addPeer
        case .removePeer: .removePeer
        }
    }
}
