import RexControl
import SwiftRex
import SwiftRexTesting
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The node's behavior without sockets: `NodeFeature` in a `TestStore` over an in-memory
/// transport, on a `TestClock`. Every action a channel sends is received and asserted; time
/// moves only when a test advances it.
@Suite struct NodeFeatureTests {
    /// A node `n1` with short, round intervals.
    struct Harness {
        let clock = TestClock()
        let network = InMemoryTransport()
        let settings = NodeSettings(feedIntervalMs: 100, followSettleMs: 50)
        let store: TestStore<NodeAction, NodeState, ClusterEnvironment>

        /// A started node (its first reconcile opens the publisher and the peers' connections),
        /// without a membership: these tests drive the data plane, and give the membership's
        /// reports as `memberChanged` actions themselves (`NodeMembershipTests` runs a real one).
        static func started(peers: [String: String] = [:]) async -> Harness {
            let node = Harness(peers: peers)
            await node.store.settle()
            return node
        }

        private init(peers: [String: String]) {
            let environment = ClusterEnvironment(
                transport: network.transport, settings: settings, clock: clock, log: NodeLogger(nodeID: "n1", level: .error, sink: { _ in })
            )
            var initial = NodeState(id: "n1", settings: settings)
            for (id, endpoint) in peers { initial.peers[id] = Peer(endpoint: endpoint) }
            store = TestStore(initial: initial, behavior: NodeFeature.behavior, environment: environment, clock: clock)
        }

        /// The ids of the channels the engine keeps now, sorted.
        func channelIDs() async -> [String] {
            await store.keep().channels.map { "\($0.id)" }.sorted()
        }
    }

    /// No heartbeat: nothing is published but the feed, and nothing is routed.
    @Test func aStartedNodeKeepsItsPublisherAndPublishesNoHeartbeat() async {
        let node = await Harness.started()
        await node.store.send(.set(topic: "warm", value: "up")) { $0.feeds["warm"] = Feed(value: "up") }
        #expect(await node.channelIDs() == ["feed[warm]", "pub"])
        #expect(node.network.events.isEmpty, "no $hb. route")
        #expect(node.network.published.map(\.topic) == ["warm"], "the feed's value only")
        await node.store.send(.unset(topic: "warm")) { $0.feeds = [:] }
        await node.store.finish(cancelChannels: true)
    }

    /// Everything the state implies, as channel ids: one per feed and peer, one per follow (a
    /// follow `from` an unknown peer has none yet).
    @Test func theStateImpliesTheChannelIDs() async {
        let node = await Harness.started(peers: ["n2": "tcp://127.0.0.1:7102"])
        await node.store.send(.set(topic: "a", value: "1")) { $0.feeds["a"] = Feed(value: "1") }
        await node.store.send(.set(topic: "b", value: "2")) { $0.feeds["b"] = Feed(value: "2") }
        await node.store.send(.follow(name: "f", topic: "t", from: nil)) { $0.follows["f"] = Follow(topic: "t") }
        await node.store.send(.follow(name: "g", topic: "t", from: "n9")) {
            $0.follows["g"] = Follow(topic: "t", from: "n9")
            $0.followsByPeer.move("g", from: nil, to: "n9")
        }
        #expect(await node.channelIDs() == ["feed[a]", "feed[b]", "follow[f]", "peer[n2]", "pub"])
        await node.store.send(.removePeer(id: "n2")) { $0.peers = [:] }
        await node.store.send(.unset(topic: "a")) { $0.feeds["a"] = nil }
        #expect(await node.channelIDs() == ["feed[b]", "follow[f]", "pub"])
        #expect(
            node.network.events.contains(.connect("tcp://127.0.0.1:7102"))
                && node.network.events.contains(.disconnect("tcp://127.0.0.1:7102")))
        await node.store.finish(cancelChannels: true)
    }

    /// 100 sets within one interval: the first value goes out at once, the last one when the
    /// interval ends, nothing in between; the last value is what late joiners get.
    @Test func aFeedIsThrottledAndItsLastValueAlwaysGoesOut() async {
        let node = await Harness.started()
        await node.store.send(.set(topic: "b", value: "0")) { $0.feeds["b"] = Feed(value: "0") }
        for value in 1..<100 { await node.store.send(.set(topic: "b", value: "\(value)")) { $0.feeds["b"] = Feed(value: "\(value)") } }
        #expect(node.network.published.filter { $0.topic == "b" }.map(\.value) == ["0"])
        _ = await node.clock.waitForSleepers(1)
        node.clock.advance(by: .milliseconds(100))
        await node.store.settle()
        #expect(node.network.published.filter { $0.topic == "b" }.map(\.value) == ["0", "99"])
        #expect(node.network.retained == ["b": "99"])
        await node.store.send(.unset(topic: "b")) { $0.feeds = [:] }
        #expect(node.network.retained.isEmpty, "an unset feed is no longer answered to late joiners")
        await node.store.finish(cancelChannels: true)
    }

    @Test func publishSendsEachTimeAndRetainsNothing() async {
        let node = await Harness.started()
        await node.store.send(.publish(topic: "chat", payload: "hi"))
        await node.store.send(.publish(topic: "chat", payload: "hi"))
        #expect(node.network.published.filter { $0.topic == "chat" }.count == 2)
        #expect(node.network.retained.isEmpty)
        await node.store.finish(cancelChannels: true)
    }

    /// A follow subscribes once its topic has been quiet for the settle time, asks for a
    /// snapshot, and records what arrives; changing its topic recreates only its own route.
    @Test func aFollowSettlesSubscribesRecordsAndIsRecreatedOnATopicChange() async {
        let node = await Harness.started()
        await node.store.send(.follow(name: "f", topic: "old", from: nil)) { $0.follows["f"] = Follow(topic: "old") }
        await node.store.send(.follow(name: "other", topic: "steady", from: nil)) { $0.follows["other"] = Follow(topic: "steady") }
        node.network.clearRecords()
        #expect(node.network.routedPatterns.isEmpty, "settling: nothing subscribed yet")
        _ = await node.clock.waitForSleepers(1)  // the engine's next timer (both settles)
        node.clock.advance(by: .milliseconds(50))
        await node.store.settle()
        #expect(Set(node.network.events) == [.addRoute(.exact("old"), snapshot: true), .addRoute(.exact("steady"), snapshot: true)])

        let message = Received(topic: "old", sender: "n2", epoch: 7, sequence: 3, value: "v")
        #expect(node.network.deliver([message]) == 1)
        await node.store.receive(.received(name: "f", messages: [message])) { Self.accept(message, by: "f", count: 1, in: &$0) }

        node.network.clearRecords()
        await node.store.send(.follow(name: "f", topic: "new", from: nil)) {
            $0.follows["f"]!.topic = "new"
            $0.follows["f"]!.senders = [:]  // a new subscription counts sequences afresh
            $0.follows["f"]!.streams = 0
        }
        _ = await node.clock.waitForSleepers(1)
        node.clock.advance(by: .milliseconds(50))
        await node.store.settle()
        #expect(node.network.events == [.removeRoute(.exact("old")), .addRoute(.exact("new"), snapshot: true)])
        let keep = await node.store.keep()
        let follow = keep.channels.first { "\($0.id)" == "follow[f]" }
        #expect(follow?.opens == 2 && follow?.recreates == 1)
        #expect(keep.channels.first { "\($0.id)" == "follow[other]" }?.opens == 1, "the other follow was left alone")
        await node.store.finish(cancelChannels: true)
    }

    /// The node's supervise is memoised on what each group of channels reads: with hundreds of
    /// follows, a membership report that changes no connection (alive → suspect → alive at a
    /// higher incarnation) or a received message changes no channel input, so the cycle is
    /// skipped without diffing a single position; a follow command re-derives the follows.
    @Test func membershipReportsAndMessagesDoNotReDeriveTheChannels() async {
        let node = await Harness.started(peers: ["n2": "tcp://127.0.0.1:7102"])
        for index in 0..<300 {
            await node.store.send(.follow(name: "f\(index)", topic: "t\(index)", from: nil)) {
                $0.follows["f\(index)"] = Follow(topic: "t\(index)")
            }
        }
        _ = await node.clock.waitForSleepers(1)
        node.clock.advance(by: .milliseconds(50))  // every follow's settle window
        await node.store.settle()
        // The membership's first report on n2 re-derives the peers (it now manages n2).
        await node.store.send(Self.report("n2", .alive, incarnation: 5, atMs: 50)) { Self.apply(.alive, 5, atMs: 50, to: "n2", in: &$0) }
        let before = await node.store.keep().counters
        #expect(before.liveChannels == 1 + 1 + 300, "publisher, the peer and 300 follows")

        await node.store.send(Self.report("n2", .suspect, incarnation: 5, atMs: 300)) {
            Self.apply(.suspect, 5, atMs: 300, to: "n2", in: &$0)
        }
        let message = Received(topic: "t7", sender: "n2", epoch: 1, sequence: 1, value: "v")
        #expect(node.network.deliver([message]) == 1)
        await node.store.receive(.received(name: "f7", messages: [message])) { Self.accept(message, by: "f7", count: 1, in: &$0) }
        await node.store.send(Self.report("n2", .alive, incarnation: 6, atMs: 500)) { Self.apply(.alive, 6, atMs: 500, to: "n2", in: &$0) }

        let idle = await node.store.keep().counters
        #expect(idle.cycles - before.cycles == 3)
        #expect(idle.skippedCycles - before.skippedCycles == 3, "nothing a channel reads changed")
        #expect(idle.examinedPositions == before.examinedPositions, "not one position diffed")
        #expect(idle.opens == before.opens && idle.cancels == before.cancels)

        // A follow re-targeted: the follows are re-derived and only that one is recreated.
        await node.store.send(.follow(name: "f9", topic: "moved", from: nil)) { $0.follows["f9"]!.topic = "moved" }
        let changed = await node.store.keep().counters
        #expect(changed.skippedCycles == idle.skippedCycles)
        #expect(changed.examinedPositions - idle.examinedPositions == 1, "one position diffed")
        #expect(changed.cancels - idle.cancels == 1, "the old subscription goes (the new one settles first)")
        await node.store.finish(cancelChannels: true)
    }

    /// Adding and removing follows among many diffs only their positions: the follows are lifted
    /// by name with the reducer's change log, so a churn batch costs O(changes), not O(follows).
    @Test func followingAndUnfollowingDiffsOnlyTheFollowsTouched() async {
        let node = await Harness.started()
        for index in 0..<400 {
            await node.store.send(.follow(name: "f\(index)", topic: "t\(index)", from: nil)) {
                $0.follows["f\(index)"] = Follow(topic: "t\(index)")
            }
        }
        var wide = 0
        var last = await node.store.keep().counters
        for index in 0..<40 {
            if index.isMultiple(of: 2) {
                await node.store.send(.follow(name: "g\(index)", topic: "u\(index)", from: nil)) {
                    $0.follows["g\(index)"] = Follow(topic: "u\(index)")
                }
            } else {
                await node.store.send(.unfollow(name: "f\(index)")) { $0.follows["f\(index)"] = nil }
            }
            let counters = await node.store.keep().counters
            // One position per batch, except a batch that grows the vacant reserve (a full diff).
            if counters.examinedPositions - last.examinedPositions > 1 { wide += 1 }
            last = counters
        }
        #expect(wide <= 1, "batches that diffed more than the follow they touched: \(wide)")
        _ = await node.clock.waitForSleepers(1)
        node.clock.advance(by: .milliseconds(50))
        await node.store.settle()
        let ids = await node.channelIDs()
        var expected = Set((0..<400).map { "follow[f\($0)]" })
        for index in 0..<40 {
            if index.isMultiple(of: 2) { expected.insert("follow[g\(index)]") } else { expected.remove("follow[f\(index)]") }
        }
        #expect(Set(ids.filter { $0.hasPrefix("follow[") }) == expected, "400 + 20 added − 20 removed, exactly")
        await node.store.finish(cancelChannels: true)
    }

    /// A follow `from` a peer waits for that peer to be known, then owns a route to it alone.
    @Test func aFollowFromAPeerWaitsForThePeerThenOwnsADedicatedRoute() async {
        let node = await Harness.started()
        await node.store.send(.follow(name: "d", topic: "d.topic", from: "n2")) {
            $0.follows["d"] = Follow(topic: "d.topic", from: "n2")
            $0.followsByPeer.move("d", from: nil, to: "n2")
        }
        #expect(await node.channelIDs() == ["pub"], "no channel while n2 is unknown")
        await node.store.send(.addPeer(id: "n2", endpoint: "tcp://127.0.0.1:7102")) {
            $0.peers["n2"] = Peer(endpoint: "tcp://127.0.0.1:7102")
            $0.follows["d"]!.endpoint = "tcp://127.0.0.1:7102"
        }
        _ = await node.clock.waitForSleepers(1)
        node.clock.advance(by: .milliseconds(50))
        await node.store.settle()
        #expect(node.network.events.contains(.openDedicated("tcp://127.0.0.1:7102", .exact("d.topic"))))
        let message = Received(topic: "d.topic", sender: "n2", sequence: 1, value: "direct")
        #expect(node.network.deliver([message], from: "tcp://127.0.0.1:9999") == 0, "another peer's message does not reach it")
        #expect(node.network.deliver([message], from: "tcp://127.0.0.1:7102") == 1)
        await node.store.receive(.received(name: "d", messages: [message])) { Self.accept(message, by: "d", count: 1, in: &$0) }
        await node.store.send(.unfollow(name: "d")) {
            $0.follows = [:]
            $0.followsByPeer = FollowsByPeer()
        }
        #expect(node.network.events.last == .closeDedicated("tcp://127.0.0.1:7102", .exact("d.topic")))
        await node.store.finish(cancelChannels: true)
    }

    /// A shared follow's reset key is its topic and a dedicated one's the topic and endpoint:
    /// the same topic moving from every peer to one peer and back recreates its channel both
    /// times, onto the other kind of route.
    @Test func theSameTopicMovingBetweenSharedAndDedicatedRecreatesTheChannel() async {
        let node = await Harness.started(peers: ["n2": "tcp://127.0.0.1:7102"])
        await node.store.send(.follow(name: "m", topic: "m.topic", from: nil)) { $0.follows["m"] = Follow(topic: "m.topic") }
        _ = await node.clock.waitForSleepers(1)
        node.clock.advance(by: .milliseconds(50))
        await node.store.settle()
        #expect(node.network.events.last == .addRoute(.exact("m.topic"), snapshot: true))
        node.network.clearRecords()
        await node.store.send(.follow(name: "m", topic: "m.topic", from: "n2")) {
            $0.follows["m"]!.from = "n2"
            $0.follows["m"]!.endpoint = "tcp://127.0.0.1:7102"
            $0.followsByPeer.move("m", from: nil, to: "n2")
        }
        _ = await node.clock.waitForSleepers(1)
        node.clock.advance(by: .milliseconds(50))
        await node.store.settle()
        #expect(node.network.events == [.removeRoute(.exact("m.topic")), .openDedicated("tcp://127.0.0.1:7102", .exact("m.topic"))])
        node.network.clearRecords()
        await node.store.send(.follow(name: "m", topic: "m.topic", from: nil)) {
            $0.follows["m"]!.from = nil
            $0.follows["m"]!.endpoint = nil
            $0.followsByPeer.move("m", from: "n2", to: nil)
        }
        _ = await node.clock.waitForSleepers(1)
        node.clock.advance(by: .milliseconds(50))
        await node.store.settle()
        #expect(
            node.network.events == [
                .closeDedicated("tcp://127.0.0.1:7102", .exact("m.topic")), .addRoute(.exact("m.topic"), snapshot: true),
            ])
        let follow = await node.store.keep().channels.first { "\($0.id)" == "follow[m]" }
        #expect(follow?.opens == 3 && follow?.recreates == 2)
        await node.store.finish(cancelChannels: true)
    }

    /// The membership's reports drive a peer: suspect keeps its connection and its `from`
    /// follows, dead drops both, and alive again at a higher incarnation (it refuted) brings
    /// both back. A message on an old heartbeat topic (`$hb.<id>`) reaches no route.
    @Test func aPeerFollowsTheMembershipsReports() async {
        let node = await Harness.started(peers: ["n2": "tcp://127.0.0.1:7102"])
        #expect(node.network.deliver([Received(topic: "$hb.n2", sender: "n2", epoch: 4, sequence: 1, value: "")]) == 0)
        await node.store.send(.follow(name: "d", topic: "d.topic", from: "n2")) {
            $0.follows["d"] = Follow(topic: "d.topic", from: "n2", endpoint: "tcp://127.0.0.1:7102")
            $0.followsByPeer.move("d", from: nil, to: "n2")
        }
        await node.store.send(Self.report("n2", .alive, incarnation: 1, atMs: 100)) { Self.apply(.alive, 1, atMs: 100, to: "n2", in: &$0) }
        await node.store.send(Self.report("n2", .suspect, incarnation: 1, atMs: 200)) {
            Self.apply(.suspect, 1, atMs: 200, to: "n2", in: &$0)
        }
        #expect(await node.channelIDs() == ["follow[d]", "peer[n2]", "pub"], "a suspect keeps its connection and follow")
        await node.store.send(Self.report("n2", .dead, incarnation: 1, atMs: 900)) {
            Self.apply(.dead, 1, atMs: 900, to: "n2", in: &$0)
            $0.follows["d"]!.endpoint = nil
        }
        #expect(await node.channelIDs() == ["pub"], "a dead peer: no connection, its follow waits")
        await node.store.send(Self.report("n2", .alive, incarnation: 2, atMs: 1_000)) {
            Self.apply(.alive, 2, atMs: 1_000, to: "n2", in: &$0)
            $0.follows["d"]!.endpoint = "tcp://127.0.0.1:7102"
        }
        #expect(await node.channelIDs() == ["follow[d]", "peer[n2]", "pub"], "back after refuting")
        await node.store.finish(cancelChannels: true)
    }

    /// The peers' channels are memoised on the reducer's revision: an operator adding a peer or
    /// moving it, and the membership moving a member it already reported, each connect it at
    /// its new endpoint in the batch that changes it.
    @Test func aPeerAddedOrMovedIsConnectedAtItsNewEndpoint() async {
        let node = await Harness.started()
        await node.store.send(.addPeer(id: "n2", endpoint: "tcp://127.0.0.1:7102")) {
            $0.peers["n2"] = Peer(endpoint: "tcp://127.0.0.1:7102")
        }
        #expect(await node.channelIDs() == ["peer[n2]", "pub"])
        #expect(node.network.events.contains(.connect("tcp://127.0.0.1:7102")))

        node.network.clearRecords()
        await node.store.send(.addPeer(id: "n2", endpoint: "tcp://127.0.0.1:7202")) {
            $0.peers["n2"] = Peer(endpoint: "tcp://127.0.0.1:7202")
        }
        #expect(Set(node.network.events) == [.disconnect("tcp://127.0.0.1:7102"), .connect("tcp://127.0.0.1:7202")])

        await node.store.send(
            .memberChanged(id: "n2", endpoint: "tcp://127.0.0.1:7202", status: .alive, incarnation: 1, atMs: 10)
        ) { Self.apply(.alive, 1, atMs: 10, to: "n2", in: &$0) }
        node.network.clearRecords()
        await node.store.send(
            .memberChanged(id: "n2", endpoint: "tcp://127.0.0.1:7302", status: .alive, incarnation: 2, atMs: 20)
        ) {
            $0.peers["n2"]!.endpoint = "tcp://127.0.0.1:7302"
            Self.apply(.alive, 2, atMs: 20, to: "n2", in: &$0)
        }
        #expect(Set(node.network.events) == [.disconnect("tcp://127.0.0.1:7202"), .connect("tcp://127.0.0.1:7302")])
        await node.store.finish(cancelChannels: true)
    }

    /// The membership reports this node as well: it never becomes its own peer.
    @Test func theMembershipsReportOnThisNodeAddsNoPeer() async {
        let node = await Harness.started()
        await node.store.send(.memberChanged(id: "n1", endpoint: "tcp://127.0.0.1:7101", status: .alive, incarnation: 1, atMs: 5))
        #expect(await node.channelIDs() == ["pub"])
        #expect(node.network.events.isEmpty)
        await node.store.finish(cancelChannels: true)
    }

    /// A report of the membership on `id` at its configured endpoint.
    private static func report(_ id: String, _ status: Peer.MembershipStatus, incarnation: UInt64, atMs: Int) -> NodeAction {
        .memberChanged(id: id, endpoint: "tcp://127.0.0.1:7102", status: status, incarnation: incarnation, atMs: atMs)
    }

    /// The state change of a membership report on an existing peer.
    private static func apply(_ status: Peer.MembershipStatus, _ incarnation: UInt64, atMs: Int, to id: String, in state: inout NodeState) {
        state.peers[id]!.status = status.peerStatus
        state.peers[id]!.membership = status
        state.peers[id]!.incarnation = incarnation
        if status == .alive { state.peers[id]!.lastSeenMs = atMs }
    }

    /// Sequences count within one subscription: messages sent while the follow was on another
    /// topic are not gaps.
    @Test func gapsCountWithinOneSubscriptionOnly() async {
        let node = await Harness.started()
        func message(_ topic: String, _ sequence: UInt64) -> Received {
            Received(topic: topic, sender: "p", sequence: sequence, value: "\(sequence)")
        }
        func follow(_ topic: String) -> NodeAction { .follow(name: "f", topic: topic, from: nil) }
        await node.store.send(follow("a")) { $0.follows["f"] = Follow(topic: "a") }
        await node.store.send(.received(name: "f", messages: [message("a", 1)])) {
            Self.accept(message("a", 1), by: "f", count: 1, in: &$0)
        }
        await node.store.send(.received(name: "f", messages: [message("a", 3)])) {
            Self.accept(message("a", 3), by: "f", count: 2, in: &$0)
            $0.follows["f"]!.gaps = 1  // sequence 2 was missed
        }
        for (topic, sequence, count) in [("b", UInt64(40), 3), ("a", 9, 4)] {
            await node.store.send(follow(topic)) {
                $0.follows["f"]!.topic = topic  // a new subscription: its sequences count afresh
                $0.follows["f"]!.senders = [:]
                $0.follows["f"]!.streams = 0
            }
            await node.store.send(.received(name: "f", messages: [message(topic, sequence)])) {
                Self.accept(message(topic, sequence), by: "f", count: count, in: &$0)
            }
        }
        #expect(node.store.state.follows["f"]?.gaps == 1, "messages sent while following another topic are not gaps")
        await node.store.finish(cancelChannels: true)
    }

    /// The state change of `message` accepted by the follow `name` as its `count`th (its
    /// sender's first stream of this subscription).
    private static func accept(_ message: Received, by name: String, count: Int, in state: inout NodeState) {
        state.follows[name]!.count = count
        state.follows[name]!.lastValue = message.value
        state.follows[name]!.lastTopic = message.topic
        state.follows[name]!.lastSender = message.sender
        state.follows[name]!.senders = [
            message.sender: SenderSequences(epoch: message.epoch, lastSequence: [message.topic: message.sequence], heardAt: count)
        ]
        state.follows[name]!.streams = 1
    }
}
