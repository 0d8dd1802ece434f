/// The identity of a distributed actor in the cluster: the member (node) hosting it and its
/// number on that member.
///
/// Numbers are assigned by the hosting system, never reused while it runs; the node part is the
/// member id the transport authenticates, so a frame's sender is always the node of the actors it
/// speaks for.
public struct ClusterActorID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The member hosting the actor.
    public let node: String
    /// The actor's number on its member.
    public let number: UInt64

    /// The id of actor `number` on member `node`.
    public init(node: String, number: UInt64) {
        self.node = node
        self.number = number
    }

    /// `number@node`, e.g. `7@n1`.
    public var description: String { "\(number)@\(node)" }

    public static func < (lhs: ClusterActorID, rhs: ClusterActorID) -> Bool {
        (lhs.node, lhs.number) < (rhs.node, rhs.number)
    }

    /// The id used to resolve call-target probes: no member has an empty name.
    static let probe = ClusterActorID(node: "", number: 0)
}
