import RexControl
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The limit check at acceptance, on keys alone: it must agree with the reducer's own rules,
/// or the journal would hold actions the store refuses (and a restart rebuild another state).
@Suite struct AdmissionLedgerTests {
    private let limits = NodeLimits(maxFeeds: 2, maxFollows: 2, maxPeers: 2)

    @Test func aNewKeyPastTheLimitIsRefusedAndAKnownOneIsNot() throws {
        var ledger = AdmissionLedger(NodeState(id: "n1"))
        try ledger.admit(.set(topic: "a", value: "1"), limits: limits, node: "n1")
        try ledger.admit(.set(topic: "b", value: "1"), limits: limits, node: "n1")
        let error = #expect(throws: ControlError.self) { try ledger.admit(.set(topic: "c", value: "1"), limits: limits, node: "n1") }
        #expect(error == ControlError(.limitReached, "node n1 holds 2 feeds, its limit (--max-feeds)"))
        // Setting a feed it holds replaces a value: no new slot.
        try ledger.admit(.set(topic: "a", value: "2"), limits: limits, node: "n1")
        // An unset frees one; the refused "c" was recorded nowhere, so it fits now, and only once.
        try ledger.admit(.unset(topic: "b"), limits: limits, node: "n1")
        try ledger.admit(.set(topic: "c", value: "1"), limits: limits, node: "n1")
        #expect(throws: ControlError.self) { try ledger.admit(.set(topic: "d", value: "1"), limits: limits, node: "n1") }
    }

    @Test func followsAndPeersHaveTheirOwnLimits() throws {
        var ledger = AdmissionLedger(NodeState(id: "n1"))
        for name in ["f1", "f2"] { try ledger.admit(.follow(name: name, topic: "t", from: nil), limits: limits, node: "n1") }
        let follow = #expect(throws: ControlError.self) {
            try ledger.admit(.follow(name: "f3", topic: "t", from: nil), limits: limits, node: "n1")
        }
        #expect(follow?.code == .limitReached && follow?.message.contains("--max-follows") == true)
        // Re-following a name changes its topic: no new slot. Feeds are not follows.
        try ledger.admit(.follow(name: "f1", topic: "other", from: "n2"), limits: limits, node: "n1")
        try ledger.admit(.set(topic: "x", value: "1"), limits: limits, node: "n1")
        try ledger.admit(.unfollow(name: "f2"), limits: limits, node: "n1")
        try ledger.admit(.follow(name: "f3", topic: "t", from: nil), limits: limits, node: "n1")

        try ledger.admit(.addPeer(id: "p1", endpoint: "tcp://127.0.0.1:1"), limits: limits, node: "n1")
        try ledger.admit(.addPeer(id: "p2", endpoint: "tcp://127.0.0.1:2"), limits: limits, node: "n1")
        let peer = #expect(throws: ControlError.self) {
            try ledger.admit(.addPeer(id: "p3", endpoint: "tcp://127.0.0.1:3"), limits: limits, node: "n1")
        }
        #expect(peer?.message == "node n1 knows 2 peers, its limit (--max-peers)")
        try ledger.admit(.removePeer(id: "p1"), limits: limits, node: "n1")
        try ledger.admit(.addPeer(id: "p3", endpoint: "tcp://127.0.0.1:3"), limits: limits, node: "n1")
    }

    @Test func itStartsFromWhatTheStateHolds() throws {
        var state = NodeState(id: "n1")
        state.peers = ["n2": Peer(endpoint: "tcp://127.0.0.1:2"), "n3": Peer(endpoint: "tcp://127.0.0.1:3")]
        state.feeds = ["a": Feed(value: "1"), "b": Feed(value: "2")]
        var ledger = AdmissionLedger(state)
        #expect(throws: ControlError.self) {
            try ledger.admit(.addPeer(id: "n4", endpoint: "tcp://127.0.0.1:4"), limits: limits, node: "n1")
        }
        #expect(throws: ControlError.self) { try ledger.admit(.set(topic: "c", value: "1"), limits: limits, node: "n1") }
        // A configured peer removed by an operator frees its slot too.
        try ledger.admit(.removePeer(id: "n2"), limits: limits, node: "n1")
        try ledger.admit(.addPeer(id: "n4", endpoint: "tcp://127.0.0.1:4"), limits: limits, node: "n1")
    }

    @Test func actionsThatHoldNothingAlwaysPass() throws {
        var ledger = AdmissionLedger(NodeState(id: "n1"))
        let none = NodeLimits(maxFeeds: 0, maxFollows: 0, maxPeers: 0)
        try ledger.admit(.publish(topic: "t", payload: "p"), limits: none, node: "n1")
        try ledger.admit(.unset(topic: "never-set"), limits: none, node: "n1")
        try ledger.admit(.unfollow(name: "never"), limits: none, node: "n1")
        try ledger.admit(.removePeer(id: "never"), limits: none, node: "n1")
        #expect(throws: ControlError.self) { try ledger.admit(.set(topic: "t", value: "v"), limits: none, node: "n1") }
    }
}
