import RexCluster
import RexControl
import SwiftRex

extension NodeChannels {
    /// The SWIM membership (``ClusterChannels/membership(_:report:timer:)``): its status reports
    /// come back as `memberChanged` actions, which the peers' channels follow; its timer, when the
    /// transport has none, as `membershipTimer`, which `NodeFeature`'s produce hands back to it.
    static func swimMembership(_ env: ClusterEnvironment) -> Channel<NodeAction>? {
        ClusterChannels.membership(
            env,
            report: { member in
                .memberChanged(
                    id: member.id, endpoint: member.endpoint, status: member.status, incarnation: member.incarnation, atMs: member.atMs)
            },
            timer: .membershipTimer)
    }
}
