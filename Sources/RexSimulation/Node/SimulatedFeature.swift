import RexCluster
import RexControl

/// A cluster feature the simulator can run: the feature itself, plus what the simulation reads
/// of it — which of its actions report a member's status (for the membership checkers).
protocol SimulatedFeature: ClusterFeature {
    /// The member status an action reports (a `MemberReport` turned into the feature's action);
    /// nil for every other action.
    static func memberReport(in action: Action) -> (member: String, status: Peer.MembershipStatus, incarnation: UInt64)?
}
