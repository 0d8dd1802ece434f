import RexControl
import SharedTestSupport
import SwiftRex
import SwiftRexTesting
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The metrics' live channels by kind come from the engine's per-class counters (opens less
/// cancels), not from a walk of the keep set. These tests hold the two against each other in one
/// snapshot (the counters and the channels of one `keep()` are read together) while the node's
/// behavior opens, settles, recreates and cancels channels of every kind.
@Suite struct ChannelKindLiveCountTests {
    struct Harness {
        let clock = TestClock()
        let network = InMemoryTransport()
        let settings = NodeSettings(feedIntervalMs: 100, followSettleMs: 50)
        let store: Store<NodeAction, NodeState, ClusterEnvironment>

        init() {
            let environment = ClusterEnvironment(
                transport: network.transport, settings: settings, clock: clock, log: NodeLogger(nodeID: "n1", level: .error, sink: { _ in })
            )
            store = Store(
                initial: NodeState(id: "n1", settings: settings), behavior: NodeFeature.behavior, environment: environment,
                clock: clock, executor: .queue(label: "ChannelKindLiveCountTests"),
                options: StoreOptions(channelClassifier: ChannelKind.classifier))
        }

        /// Sends `action` and waits until the store processed it (and its reconcile ran).
        func send(_ action: NodeAction) async {
            store.dispatch(action)
            await store.waitUntilIdle()
        }

        /// Lets the follow settle pass, so settling follows open.
        func settle() async {
            clock.advance(by: .milliseconds(settings.followSettleMs))
            await store.waitUntilIdle()
        }

        /// Live channels by kind twice, from one snapshot: from the counters, and counted from
        /// the channels (the walk the counters replace).
        func counts() async -> (fromCounters: [String: Int]?, fromChannels: [String: Int]) {
            let keep = await store.keep()
            var walked = Dictionary(uniqueKeysWithValues: ChannelKind.allCases.map { ($0.rawValue, 0) })
            for entry in keep.channels where entry.status == .live { walked[ChannelKind(id: entry.id).rawValue, default: 0] += 1 }
            return (MetricsDocument.liveCounts(keep.counters), walked)
        }
    }

    @Test func liveCountsByKindFollowOpensCancelsAndRecreates() async throws {
        let node = Harness()
        await node.store.waitUntilIdle()
        var counts = await node.counts()
        #expect(counts.fromCounters == counts.fromChannels)
        #expect(counts.fromCounters?["publisher"] == 1 && counts.fromCounters?["heartbeat"] == nil)

        await node.send(.set(topic: "a", value: "1"))
        await node.send(.set(topic: "b", value: "2"))
        for name in ["f", "g", "h"] { await node.send(.follow(name: name, topic: "t.\(name)", from: nil)) }
        counts = await node.counts()
        #expect(counts.fromCounters == counts.fromChannels)
        #expect(counts.fromCounters?["feed"] == 2)
        #expect(counts.fromCounters?["follow"] == 0, "follows settle before they open: none is live yet")

        await node.settle()
        counts = await node.counts()
        #expect(counts.fromCounters == counts.fromChannels)
        #expect(counts.fromCounters?["follow"] == 3)

        // A new topic recreates g's channel: cancelled at once, open again after the settle.
        await node.send(.follow(name: "g", topic: "t.other", from: nil))
        counts = await node.counts()
        #expect(counts.fromCounters == counts.fromChannels)
        #expect(counts.fromCounters?["follow"] == 2)
        await node.settle()
        counts = await node.counts()
        #expect(counts.fromCounters == counts.fromChannels)
        #expect(counts.fromCounters?["follow"] == 3)
        let recreates = await node.store.reconcileCounters().byClass.first { $0.name == "follow" }?.recreates
        #expect(recreates == 1)

        await node.send(.unfollow(name: "h"))
        await node.send(.unset(topic: "a"))
        await node.send(.addPeer(id: "n2", endpoint: "tcp://127.0.0.1:7102"))
        counts = await node.counts()
        #expect(counts.fromCounters == counts.fromChannels)
        #expect(counts.fromCounters?["follow"] == 2 && counts.fromCounters?["feed"] == 1 && counts.fromCounters?["peer"] == 1)
        await node.send(.removePeer(id: "n2"))
        counts = await node.counts()
        #expect(counts.fromCounters == counts.fromChannels)
        #expect(counts.fromCounters?["peer"] == 0)

        await node.store.release()
        counts = await node.counts()
        #expect(counts.fromCounters == counts.fromChannels)
        #expect(counts.fromCounters?.values.allSatisfy { $0 == 0 } == true, "a released store has nothing live")
    }

    /// A seeded random run of sets, unsets, follows (new topics recreate), unfollows and peer
    /// changes, with the settle passing at random: after every step the counters agree with the
    /// walk, and at the end every follow of the state is live.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func countsAgreeWithTheKeepSetAcrossARandomRun(seed: UInt64) async {
        let node = Harness()
        var random = SeededGenerator(state: seed)
        for _ in 0..<300 {
            let pick = random.next() % 100
            let key = "k\(random.next() % 12)"
            switch pick {
            case 0..<20: await node.send(.set(topic: key, value: "\(random.next() % 4)"))
            case 20..<30: await node.send(.unset(topic: key))
            case 30..<60: await node.send(.follow(name: key, topic: "t\(random.next() % 3)", from: nil))
            case 60..<75: await node.send(.unfollow(name: key))
            case 75..<82: await node.send(.addPeer(id: key, endpoint: "tcp://127.0.0.1:\(7100 + random.next() % 2)"))
            case 82..<88: await node.send(.removePeer(id: key))
            default: await node.settle()
            }
            let counts = await node.counts()
            #expect(counts.fromCounters == counts.fromChannels)
        }
        await node.settle()
        let counts = await node.counts()
        #expect(counts.fromCounters == counts.fromChannels)
        #expect(counts.fromCounters?["follow"] == node.store.state.follows.count)
        #expect(counts.fromCounters?["feed"] == node.store.state.feeds.count)
        await node.store.release()
    }

    /// Without a classifier there are no classes to count (nil), never a map of zeros.
    @Test func withoutAClassifierThereAreNoCountsByKind() {
        #expect(MetricsDocument.liveCounts(ReconcileCounters()) == nil)
    }
}
