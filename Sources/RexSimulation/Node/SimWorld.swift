import RexCluster
import RexControl
import RexMembership

/// What every simulated node shares: the loop, the network, the history, the run's generator,
/// and the settings every node is configured with.
final class SimWorld {
    let loop: SimLoop
    let network: SimNetwork
    let history: History
    let nodeCount: Int
    let settings: NodeSettings
    let membershipSettings: MembershipSettings
    /// Epochs, membership seeds, torn-write lengths: every random choice a node makes.
    var random: MembershipRandom

    init(
        loop: SimLoop, network: SimNetwork, history: History, nodeCount: Int, settings: NodeSettings,
        membershipSettings: MembershipSettings, seed: UInt64
    ) {
        self.loop = loop
        self.network = network
        self.history = history
        self.nodeCount = nodeCount
        self.settings = settings
        self.membershipSettings = membershipSettings
        random = MembershipRandom(seed: seed)
    }
}
