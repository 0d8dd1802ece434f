public import RexControl

/// What the membership tells a feature about one other member: it joined, turned suspect, died,
/// left or came back. A feature sees these as actions (``ClusterChannels/membership(_:report:timer:)``)
/// and decides in its reducer what they mean for its state.
public struct MemberReport: Sendable, Equatable {
    /// The member's id.
    public let id: String
    /// Its publisher endpoint: what a connection to it (``ClusterChannels/peer(id:member:endpoint:_:)``)
    /// or a follow from it dials.
    public let endpoint: String
    /// Alive, suspect, dead or left.
    public let status: Peer.MembershipStatus
    /// The member's incarnation: a higher one overrides what was said about a lower one.
    public let incarnation: UInt64
    /// When the membership said it, in milliseconds since this node started.
    public let atMs: Int

    /// Alive or suspect: a member whose publisher a feature keeps a connection to (the
    /// membership brings a suspect back or declares it dead).
    public var isUp: Bool { status == .alive || status == .suspect }

    /// A report (tests build them by hand).
    public init(id: String, endpoint: String, status: Peer.MembershipStatus, incarnation: UInt64, atMs: Int) {
        self.id = id
        self.endpoint = endpoint
        self.status = status
        self.incarnation = incarnation
        self.atMs = atMs
    }
}
