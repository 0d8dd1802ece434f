extension Peer {
    /// A peer's status as the SWIM membership reports it: `Peer.Status` folds the last two into
    /// `gone` (what the data plane acts on), this keeps a crash (dead) apart from a stop (left).
    public enum MembershipStatus: String, Codable, Sendable, CaseIterable {
        /// Answers probes.
        case alive
        /// Missed a probe; declared dead unless it refutes (at a higher incarnation) in time.
        case suspect
        /// Stayed suspect past the suspicion timeout.
        case dead
        /// Announced that it left (a graceful stop).
        case left

        /// The status `Peer.status` shows for it: dead and left are `gone`.
        public var peerStatus: Peer.Status {
            switch self {
            case .alive: .alive
            case .suspect: .suspect
            case .dead, .left: .gone
            }
        }
    }
}
