import RexCluster
import RexControl
import RexFeeds

extension NodeFeature: SimulatedFeature {
    static func memberReport(in action: NodeAction) -> (member: String, status: Peer.MembershipStatus, incarnation: UInt64)? {
        guard case .memberChanged(let id, _, let status, let incarnation, _) = action else { return nil }
        return (id, status, incarnation)
    }
}
