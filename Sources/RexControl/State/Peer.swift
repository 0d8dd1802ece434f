/// Another node, as the SWIM membership reports it.
public struct Peer: Codable, Sendable, Equatable {
    /// What the node's data plane makes of a peer: `gone` folds the membership's dead and left
    /// (see `membership` for which).
    public enum Status: String, Codable, Sendable, CaseIterable {
        /// Not reported by the membership: a configured peer for the instant before the node's
        /// membership starts, or an operator's `add-peer` of a publisher that is not a member.
        case unknown
        /// A member that answers probes.
        case alive
        /// A member that missed a probe and has not refuted it yet.
        case suspect
        /// A member declared dead, or one that left.
        case gone
    }

    public var endpoint: String
    public var status: Status = .unknown
    /// When the membership last reported it alive (ms since this node started). The membership
    /// reports changes (a member added or joined, a suspicion refuted, a member back), not every
    /// probe answered: a peer alive now has been held alive since then.
    public var lastSeenMs: Int?
    /// Its incarnation as the membership last reported it (raised only by the peer itself, to
    /// refute a suspicion or come back); nil while the membership has not reported it.
    public var incarnation: UInt64?
    /// Its status as the membership last reported it, where `status` folds dead and left into
    /// `gone`; nil while the membership has not reported it.
    public var membership: MembershipStatus?

    public init(endpoint: String) {
        self.endpoint = endpoint
    }
}
