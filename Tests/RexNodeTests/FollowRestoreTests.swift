import Foundation
import RexControl
import SwiftRex
import SwiftRexTesting
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// Follows restored from the durable state at start open at once; the follow settle still holds
/// for every change an operator makes after start (`Follow.restoredAtStart`).
@Suite struct FollowRestoreTests {
    static let settings = NodeSettings(feedIntervalMs: 100, followSettleMs: 50)
    static let n2 = "tcp://127.0.0.1:7102"

    /// A node `n1` started on a durable state holding follows `a` (any peer) and `b` (from n2),
    /// (without a membership: n2 stays as configured).
    static func restartedNode() async -> (TestStore<NodeAction, NodeState, ClusterEnvironment>, InMemoryTransport, TestClock) {
        let clock = TestClock()
        let network = InMemoryTransport()
        let environment = ClusterEnvironment(
            transport: network.transport, settings: settings, clock: clock, log: NodeLogger(nodeID: "n1", level: .error, sink: { _ in })
        )
        var durable = DurableState()
        durable.apply(.follow(name: "a", topic: "t.a", from: nil))
        durable.apply(.follow(name: "b", topic: "t.b", from: "n2"))
        var initial = NodeState(id: "n1", settings: settings)
        initial.peers["n2"] = Peer(endpoint: n2)
        let store = TestStore(
            initial: durable.restore(onto: initial), behavior: NodeFeature.behavior, environment: environment, clock: clock
        )
        await store.settle()  // the first reconcile
        return (store, network, clock)
    }

    static func follow(_ name: String, in keep: KeepSnapshot) -> KeepEntry? {
        keep.channels.first { "\($0.id)" == "follow[\(name)]" }
    }

    @Test func aRestoredStateMarksItsFollowsAndTheMarkIsNotEncoded() throws {
        var durable = DurableState()
        durable.apply(.follow(name: "a", topic: "t.a", from: nil))
        let state = durable.restore(onto: NodeState(id: "n1"))
        #expect(state.follows["a"]?.restoredAtStart == true)
        let json = String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
        #expect(!json.contains("restoredAtStart"), "live only: \(json)")
        let decoded = try JSONDecoder().decode(NodeState.self, from: Data(json.utf8))
        #expect(decoded.follows["a"]?.restoredAtStart == false && decoded.follows["a"]?.topic == "t.a")
    }

    @Test func restoredFollowsOpenAtOnceWithoutTheSettle() async {
        let (store, network, _) = await Self.restartedNode()
        // No clock advance: both are open as the store starts.
        #expect(Set(network.events).isSuperset(of: [.addRoute(.exact("t.a"), snapshot: true), .openDedicated(Self.n2, .exact("t.b"))]))
        let keep = await store.keep()
        #expect(Self.follow("a", in: keep)?.status == .live && Self.follow("b", in: keep)?.status == .live)
        #expect(keep.counters.opens >= 2)
        await store.finish(cancelChannels: true)
    }

    @Test func anOperatorsChangeAfterStartStillSettles() async {
        let (store, network, clock) = await Self.restartedNode()
        network.clearRecords()

        // A topic change: the old subscription goes at once, the new one waits the settle.
        await store.send(.follow(name: "a", topic: "t.new", from: nil)) {
            $0.follows["a"]!.topic = "t.new"
            $0.follows["a"]!.restoredAtStart = false
        }
        // A new follow settles too (the first appearance, as the engine's R-5 says).
        await store.send(.follow(name: "c", topic: "t.c", from: nil)) { $0.follows["c"] = Follow(topic: "t.c") }
        // The same follow sent again: no longer marked, but its channel is unchanged and stays live.
        await store.send(.follow(name: "b", topic: "t.b", from: "n2")) { $0.follows["b"]!.restoredAtStart = false }
        #expect(network.events == [.removeRoute(.exact("t.a"))], "settling: nothing new subscribed yet")
        var keep = await store.keep()
        #expect(Self.follow("a", in: keep)?.status == .settling && Self.follow("c", in: keep)?.status == .settling)
        #expect(Self.follow("b", in: keep)?.status == .live && Self.follow("b", in: keep)?.opens == 1)

        _ = await clock.waitForSleepers(1)  // the engine's settle timer
        clock.advance(by: .milliseconds(49))
        await store.settle()
        #expect(network.events == [.removeRoute(.exact("t.a"))], "not before the settle has passed")
        clock.advance(by: .milliseconds(1))
        await store.settle()
        #expect(
            Set(network.events) == [
                .removeRoute(.exact("t.a")), .addRoute(.exact("t.new"), snapshot: true), .addRoute(.exact("t.c"), snapshot: true),
            ])
        keep = await store.keep()
        #expect(Self.follow("a", in: keep)?.opens == 2 && Self.follow("a", in: keep)?.recreates == 1)
        #expect(Self.follow("b", in: keep)?.opens == 1 && Self.follow("b", in: keep)?.recreates == 0)
        await store.finish(cancelChannels: true)
    }

    /// A restored follow whose peer moves to another endpoint is re-targeted by the node, not
    /// restored: its new socket waits the settle.
    @Test func aRestoredFollowReTargetedByItsPeerSettles() async {
        let (store, network, clock) = await Self.restartedNode()
        network.clearRecords()
        let moved = "tcp://127.0.0.1:7112"
        await store.send(.addPeer(id: "n2", endpoint: moved)) {
            $0.peers["n2"] = Peer(endpoint: moved)
            $0.follows["b"]!.endpoint = moved
            $0.follows["b"]!.restoredAtStart = false
        }
        #expect(!network.events.contains(.openDedicated(moved, .exact("t.b"))), "settling")
        _ = await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(50))
        await store.settle()
        #expect(network.events.contains(.openDedicated(moved, .exact("t.b"))))
        await store.finish(cancelChannels: true)
    }
}
