import Foundation
import RexControl
import SharedTestSupport
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// `NodeState.followsByPeer`, the reducer's index of follows by their `from` peer: after any
/// sequence of follows, re-targets, unfollows, refusals at the limit and membership reports it
/// holds exactly the follows of each peer, and every follow's endpoint is what a scan of every
/// follow would resolve (the O(F) walk it replaced).
@Suite struct FollowsByPeerTests {
    static let peers = ["n2", "n3", "n4"]
    static let statuses: [Peer.MembershipStatus] = [.alive, .suspect, .dead, .left]

    /// What the index must hold: every follow's name under its `from` peer.
    static func expectedIndex(_ state: NodeState) -> [String: Set<String>] {
        var index: [String: Set<String>] = [:]
        for (name, follow) in state.follows { if let from = follow.from { index[from, default: []].insert(name) } }
        return index
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func theIndexMatchesTheFollowsAndResolvesLikeAFullScan(seed: UInt64) {
        var random = SeededGenerator(state: seed)
        var state = NodeState(id: "n1", settings: NodeSettings(limits: NodeLimits(maxFollows: 40)))
        for step in 0..<3_000 {
            let name = "f\(random.next(60))"
            let peer = Self.peers[random.next(Self.peers.count)]
            let action: NodeAction
            switch random.next(10) {
            case 0...3:
                // From a peer, a peer nobody knows (n9), or any peer.
                let from = [peer, "n9", nil][random.next(3)]
                action = .follow(name: name, topic: "t\(random.next(5))", from: from)
            case 4...5: action = .unfollow(name: name)
            case 6: action = .addPeer(id: peer, endpoint: "tcp://127.0.0.1:\(7100 + random.next(3))")
            case 7: action = .removePeer(id: peer)
            default:
                action = .memberChanged(
                    id: peer, endpoint: "tcp://127.0.0.1:\(7100 + random.next(3))", status: Self.statuses[random.next(4)],
                    incarnation: UInt64(random.next(4)), atMs: step)
            }
            NodeFeature.reduce(action, &state)
            #expect(state.followsByPeer.all == Self.expectedIndex(state), "step \(step): \(action)")
            for (name, follow) in state.follows {
                let resolved = follow.from.flatMap { state.peers[$0]?.reachableEndpoint }
                #expect(follow.endpoint == resolved, "step \(step): \(name) \(follow) after \(action)")
            }
        }
        #expect(state.followsByPeer.all.values.reduce(0) { $0 + $1.count } > 0, "the run kept some follows from peers")
    }

    @Test func aReportOnOnePeerTouchesOnlyItsFollows() {
        var state = NodeState(id: "n1")
        NodeFeature.reduce(.addPeer(id: "n2", endpoint: "tcp://127.0.0.1:7102"), &state)
        NodeFeature.reduce(.addPeer(id: "n3", endpoint: "tcp://127.0.0.1:7103"), &state)
        for index in 0..<1_000 { NodeFeature.reduce(.follow(name: "b\(index)", topic: "t", from: "n3"), &state) }
        NodeFeature.reduce(.follow(name: "a", topic: "t", from: "n2"), &state)
        NodeFeature.reduce(.follow(name: "c", topic: "t", from: nil), &state)
        #expect(state.followsByPeer["n2"] == ["a"] && state.followsByPeer["n3"].count == 1_000)
        let before = state.revisions.followChanges.revision
        NodeFeature.reduce(
            .memberChanged(id: "n2", endpoint: "tcp://127.0.0.1:7102", status: .dead, incarnation: 1, atMs: 10), &state)
        #expect(state.follows["a"]?.endpoint == nil)
        #expect(state.revisions.followChanges.revision == before + 1, "one follow re-resolved")
        // Re-targeted and unfollowed: the index follows.
        NodeFeature.reduce(.follow(name: "a", topic: "t", from: "n3"), &state)
        #expect(state.followsByPeer["n2"].isEmpty && state.followsByPeer["n3"].count == 1_001)
        #expect(state.follows["a"]?.endpoint == "tcp://127.0.0.1:7103")
        NodeFeature.reduce(.unfollow(name: "a"), &state)
        #expect(state.followsByPeer["n3"].count == 1_000 && state.followsByPeer.all.keys.sorted() == ["n3"])
    }

    /// The index is compared by `==` and not encoded: decoding rebuilds it from the follows, so a
    /// decoded state equals the one encoded, and an index out of step makes two states unequal.
    @Test func decodingRebuildsTheIndexAndEqualityComparesIt() throws {
        var state = NodeState(id: "n1")
        NodeFeature.reduce(.addPeer(id: "n2", endpoint: "tcp://127.0.0.1:7102"), &state)
        NodeFeature.reduce(.follow(name: "a", topic: "t", from: "n2"), &state)
        NodeFeature.reduce(.follow(name: "b", topic: "t", from: "n3"), &state)
        NodeFeature.reduce(.follow(name: "c", topic: "t", from: nil), &state)
        let decoded = try JSONDecoder().decode(NodeState.self, from: try JSONEncoder().encode(state))
        #expect(decoded.followsByPeer.all == ["n2": ["a"], "n3": ["b"]])
        #expect(decoded == state)
        var stale = state
        stale.followsByPeer.remove("a", from: "n2")
        #expect(stale != state, "an index that lost a follow")
        var bumped = state
        bumped.revisions.follows &+= 1
        #expect(bumped == state, "the change stamps are history, not content")
    }
}
