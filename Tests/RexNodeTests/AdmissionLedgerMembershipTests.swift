import RexControl
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The admission ledger and the reducer agree on the peer limit when the SWIM membership adds
/// peers behind the control endpoint's back (its reports go straight to the store).
@Suite struct AdmissionLedgerMembershipTests {
    /// A node allowed two peers, one configured; the membership then reports a second one.
    static func stateWithLearnedMember() -> (configured: NodeState, learned: NodeState) {
        let settings = NodeSettings(limits: NodeLimits(maxPeers: 2))
        let configured = NodeState(id: "n1", settings: settings, peers: ["n2": Peer(endpoint: "tcp://127.0.0.1:7102")])
        var learned = configured
        NodeFeature.reduce(
            .memberChanged(id: "n3", endpoint: "tcp://127.0.0.1:7103", status: .alive, incarnation: 4, atMs: 10), &learned)
        return (configured, learned)
    }

    @Test func anAddPeerPastTheLimitWithLearnedMembersIsRefusedByBoth() throws {
        let (configured, learned) = Self.stateWithLearnedMember()
        #expect(learned.peers.count == 2, "the membership's report filled the limit")
        var ledger = AdmissionLedger(configured)
        ledger.countKeysFromElsewhere(for: .addPeer(id: "n4", endpoint: "tcp://127.0.0.1:7104"), in: learned)
        let addPeer = NodeAction.addPeer(id: "n4", endpoint: "tcp://127.0.0.1:7104")
        #expect(throws: ControlError.self) { try ledger.admit(addPeer, limits: learned.settings.limits, node: "n1") }
        // The reducer refuses it too: what the ledger refuses is what the node would not apply.
        var applied = learned
        NodeFeature.reduce(addPeer, &applied)
        #expect(applied.peers["n4"] == nil)
        #expect(applied.refused == learned.refused + 1)
    }

    @Test func withoutCountingMembersTheLedgerWouldAdmitWhatTheReducerRefuses() throws {
        // The disagreement `countKeysFromElsewhere` closes: the ledger built before the report admits n4.
        let (configured, learned) = Self.stateWithLearnedMember()
        var ledger = AdmissionLedger(configured)
        try ledger.admit(.addPeer(id: "n4", endpoint: "tcp://127.0.0.1:7104"), limits: learned.settings.limits, node: "n1")
        var applied = learned
        NodeFeature.reduce(.addPeer(id: "n4", endpoint: "tcp://127.0.0.1:7104"), &applied)
        #expect(applied.peers["n4"] == nil, "the reducer refused what the ledger admitted")
    }

    @Test func aLearnedMemberStillLeavesRoomUpToTheLimit() throws {
        let settings = NodeSettings(limits: NodeLimits(maxPeers: 3))
        var state = NodeState(id: "n1", settings: settings, peers: ["n2": Peer(endpoint: "tcp://127.0.0.1:7102")])
        var ledger = AdmissionLedger(state)
        NodeFeature.reduce(.memberChanged(id: "n3", endpoint: "tcp://127.0.0.1:7103", status: .alive, incarnation: 0, atMs: 1), &state)
        ledger.countKeysFromElsewhere(for: .addPeer(id: "n4", endpoint: "tcp://127.0.0.1:7104"), in: state)
        let limits = state.settings.limits
        // Counting twice changes nothing; a re-added known member is no new peer.
        ledger.countKeysFromElsewhere(for: .addPeer(id: "n4", endpoint: "tcp://127.0.0.1:7104"), in: state)
        try ledger.admit(.addPeer(id: "n3", endpoint: "tcp://127.0.0.1:7103"), limits: limits, node: "n1")
        try ledger.admit(.addPeer(id: "n4", endpoint: "tcp://127.0.0.1:7104"), limits: limits, node: "n1")
        #expect(throws: ControlError.self) {
            try ledger.admit(.addPeer(id: "n5", endpoint: "tcp://127.0.0.1:7105"), limits: limits, node: "n1")
        }
        for action in [
            NodeAction.addPeer(id: "n3", endpoint: "tcp://127.0.0.1:7103"), .addPeer(id: "n4", endpoint: "tcp://127.0.0.1:7104"),
        ] {
            NodeFeature.reduce(action, &state)
        }
        #expect(state.peers.count == 3)
        #expect(state.refused == 0)
    }
}
