public import RexControl

/// A chat node's state: its own rooms, the rosters other nodes published, and the members of
/// the cluster. All of it is what `rexctl state` shows.
public struct ChatState: Codable, Sendable, Equatable {
    /// This node's id.
    public let node: String
    /// The node's limits (names, values): a join past them is refused.
    public let limits: NodeLimits
    /// The other members of the cluster, as the membership last reported them.
    public var members: [String: Peer] = [:]
    /// This node's rooms: room → its members here, sorted. Operators' joins and leaves.
    public var local: [String: [String]] = [:]
    /// What the other nodes published for the rooms this node follows: room → node → members.
    public var remote: [String: [String: [String]]] = [:]
    /// Every room of this node with its roster merged across the cluster: `member@node`, sorted.
    /// Derived from `local` and `remote` by the reducer after every action, so that `state`
    /// shows it (settable for tests' expected states).
    public var rooms: [String: [String]] = [:]

    public init(node: String, limits: NodeLimits = NodeLimits()) {
        self.node = node
        self.limits = limits
    }

    /// The members to stay connected to (alive or suspect): id → publisher endpoint.
    var connectable: [String: String] {
        members.filter { $0.value.status == .alive || $0.value.status == .suspect }.mapValues(\.endpoint)
    }
}

/// A room's presence on the wire: each node publishes its roster of a room, retained, on
/// `presence.<room>.<node>`; the value is the sorted member names with NUL between them (a member
/// name holds no NUL), and empty when the room has nobody left there.
enum Presence {
    static func topic(room: String, node: String) -> String { "presence.\(room).\(node)" }
    static func everyNode(room: String) -> String { "presence.\(room).*" }

    static func value(_ members: [String]) -> String { members.joined(separator: "\0") }

    /// The members a value names; nil for a value no node of ours sends (an empty or too long
    /// name): it is dropped.
    static func members(_ value: String, limits: NodeLimits) -> [String]? {
        guard !value.isEmpty else { return [] }
        let members = value.split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
        return members.allSatisfy { !$0.isEmpty && $0.utf8.count <= limits.maxNameBytes } ? members : nil
    }
}
