import RexControl
import Foundation
import Testing
@testable import RexNode
import SwiftRex

/// Two or three nodes in one process, over real sockets on loopback.
@Suite(.serialized) struct NodeClusterTests {
    @Test func aFeedSetOnOneNodeReachesAFollowerOnAnother() async throws {
        let n1 = try startNode("n1")
        let n2 = try startNode("n2", peers: ["n1": n1.pubEndpoint])
        n2.dispatch(.follow(name: "prices", topic: "eu.prices", from: nil))
        #expect(await eventually { n1.publisherSubscriptions().contains("eu.prices") }, "the subscription reached n1")
        n1.dispatch(.set(topic: "eu.prices", value: "42"))
        #expect(await eventually { n2.state.follows["prices"]?.lastValue == "42" })
        let follow = try #require(n2.state.follows["prices"])
        #expect(follow.lastSender == "n1" && follow.count == 1 && follow.gaps == 0)
        await n2.stop()
        await n1.stop()
    }

    @Test func changingAFollowTopicRecreatesOnlyThatChannelAndTheOldTopicStopsArriving() async throws {
        let n1 = try startNode("n1")
        let n2 = try startNode("n2", peers: ["n1": n1.pubEndpoint])
        n2.dispatch(.follow(name: "f", topic: "old", from: nil))
        n2.dispatch(.follow(name: "other", topic: "steady", from: nil))
        #expect(await eventually { n1.publisherSubscriptions().isSuperset(of: ["old", "steady"]) })
        let socketsBefore = n2.socketCounts().open
        let keepBefore = await n2.store.keep()

        n2.dispatch(.follow(name: "f", topic: "new", from: nil))
        #expect(await eventually { n1.publisherSubscriptions().contains("new") && !n1.publisherSubscriptions().contains("old") })
        let keepAfter = await n2.store.keep()
        let follow = try #require(keepAfter.entry(for: "follow[f]") ?? keepAfter.channels.first { "\($0.id)" == "follow[f]" })
        #expect(follow.opens == 2 && follow.recreates == 1)
        #expect(keepAfter.counters.opens - keepBefore.counters.opens == 1, "exactly one open")
        #expect(keepAfter.counters.cancels - keepBefore.counters.cancels == 1, "exactly one cancel")
        #expect(n2.socketCounts().open == socketsBefore, "a shared-socket follow opens no new socket")

        n1.dispatch(.publish(topic: "old", payload: "stale"))
        n1.dispatch(.publish(topic: "new", payload: "fresh"))
        #expect(await eventually { n2.state.follows["f"]?.lastValue == "fresh" })
        #expect(n2.state.follows["f"]?.count == 1, "the old topic no longer arrives")
        await n2.stop()
        await n1.stop()
    }

    @Test func aFollowFromAPeerOwnsOneSocketAndUnfollowClosesIt() async throws {
        let n1 = try startNode("n1")
        let n2 = try startNode("n2", peers: ["n1": n1.pubEndpoint])
        #expect(await eventually { n2.state.peers["n1"]?.status == .alive })
        let fdsBefore = openFileDescriptors()
        let socketsBefore = n2.socketCounts().open
        n2.dispatch(.follow(name: "direct", topic: "d.topic", from: "n1"))
        #expect(await eventually { n2.socketCounts().open == socketsBefore + 1 }, "exactly one socket")
        #expect(await eventually { n1.publisherSubscriptions().contains("d.topic") })
        n1.dispatch(.set(topic: "d.topic", value: "v"))
        #expect(await eventually { n2.state.follows["direct"]?.lastValue == "v" })

        n2.dispatch(.follow(name: "direct", topic: "d.other", from: "n1"))
        #expect(await eventually { n1.publisherSubscriptions().contains("d.other") })
        #expect(n2.socketCounts().open == socketsBefore + 1, "recreated: still one socket")
        let entry = await n2.store.keep().channels.first { "\($0.id)" == "follow[direct]" }
        #expect(entry?.recreates == 1)

        n2.dispatch(.unfollow(name: "direct"))
        #expect(await eventually { n2.socketCounts().open == socketsBefore })
        #expect(await eventually { openFileDescriptors() <= fdsBefore }, "the process's fd count returns")
        await n2.stop()
        await n1.stop()
    }

    @Test func twoFollowsOfOneTopicUnsubscribeOnlyWhenBothAreGone() async throws {
        let n1 = try startNode("n1")
        let n2 = try startNode("n2", peers: ["n1": n1.pubEndpoint])
        n2.dispatch(.follow(name: "a", topic: "shared", from: nil))
        n2.dispatch(.follow(name: "b", topic: "shared", from: nil))
        #expect(await eventually { n1.publisherSubscriptions().contains("shared") })
        #expect(n2.socketCounts().sharedSubscriptions == 2, "shared + the heartbeat prefix")
        n2.dispatch(.unfollow(name: "a"))
        #expect(await eventually { n2.state.follows["a"] == nil })
        #expect(await eventually { (await n2.store.keep()).channels.allSatisfy { "\($0.id)" != "follow[a]" } })
        n1.dispatch(.publish(topic: "shared", payload: "still here"))
        #expect(await eventually { n2.state.follows["b"]?.lastValue == "still here" }, "b still receives")
        #expect(n1.publisherSubscriptions().contains("shared"))
        n2.dispatch(.unfollow(name: "b"))
        #expect(await eventually { !n1.publisherSubscriptions().contains("shared") }, "unsubscribed when both are gone")
        await n2.stop()
        await n1.stop()
    }

    @Test func aFollowJoiningOrLeavingMidStreamGetsExactlyTheMessagesAfterIt() async throws {
        // A stream of one topic is routed from a one-entry cache: joining or leaving must reset it.
        let n1 = try startNode("n1")
        let n2 = try startNode("n2", peers: ["n1": n1.pubEndpoint])
        n2.dispatch(.follow(name: "first", topic: "stream", from: nil))
        #expect(await eventually { n1.publisherSubscriptions().contains("stream") })
        for n in 1...3 { n1.dispatch(.publish(topic: "stream", payload: "m\(n)")) }
        #expect(await eventually { n2.state.follows["first"]?.count == 3 })

        n2.dispatch(.follow(name: "second", topic: "stream", from: nil))
        #expect(await eventually { (await n2.store.keep()).channels.contains { "\($0.id)" == "follow[second]" && $0.status == .live } })
        for n in 4...5 { n1.dispatch(.publish(topic: "stream", payload: "m\(n)")) }
        #expect(await eventually { n2.state.follows["second"]?.count == 2 && n2.state.follows["first"]?.count == 5 })
        #expect(n2.state.follows["second"]?.lastValue == "m5")

        n2.dispatch(.unfollow(name: "first"))
        #expect(await eventually { (await n2.store.keep()).channels.allSatisfy { "\($0.id)" != "follow[first]" } })
        n1.dispatch(.publish(topic: "stream", payload: "m6"))
        #expect(await eventually { n2.state.follows["second"]?.count == 3 })
        #expect(n2.state.follows["second"]?.lastValue == "m6")
        #expect(n2.state.follows["first"] == nil)
        await n2.stop()
        await n1.stop()
    }

    @Test func aPrefixFollowJoiningOrLeavingMidStreamGetsExactlyTheMessagesAfterIt() async throws {
        // A topic's targets (exact and prefix) are cached while a stream stays on that topic:
        // adding or removing a prefix route must reset that cache.
        let n1 = try startNode("n1")
        let n2 = try startNode("n2", peers: ["n1": n1.pubEndpoint])
        n2.dispatch(.follow(name: "exact", topic: "s.x", from: nil))
        #expect(await eventually { n1.publisherSubscriptions().contains("s.x") })
        for n in 1...3 { n1.dispatch(.publish(topic: "s.x", payload: "m\(n)")) }
        #expect(await eventually { n2.state.follows["exact"]?.count == 3 })

        n2.dispatch(.follow(name: "all", topic: "s.*", from: nil))
        #expect(await eventually { (await n2.store.keep()).channels.contains { "\($0.id)" == "follow[all]" && $0.status == .live } })
        #expect(await eventually { n1.publisherSubscriptions().contains("s.*") })
        for n in 4...5 { n1.dispatch(.publish(topic: "s.x", payload: "m\(n)")) }
        #expect(await eventually { n2.state.follows["all"]?.count == 2 && n2.state.follows["exact"]?.count == 5 })
        #expect(n2.state.follows["all"]?.lastValue == "m5")

        n2.dispatch(.unfollow(name: "all"))
        #expect(await eventually { (await n2.store.keep()).channels.allSatisfy { "\($0.id)" != "follow[all]" } })
        n1.dispatch(.publish(topic: "s.x", payload: "m6"))
        #expect(await eventually { n2.state.follows["exact"]?.count == 6 })
        #expect(n2.state.follows["all"] == nil)
        await n2.stop()
        await n1.stop()
    }

    @Test func aBurstOfSetsPublishesAtMostTwoMessagesAndTheLastValueArrives() async throws {
        let n1 = try startNode("n1", feedIntervalMs: 100)
        let n2 = try startNode("n2", peers: ["n1": n1.pubEndpoint])
        n2.dispatch(.follow(name: "burst", topic: "b", from: nil))
        #expect(await eventually { n1.publisherSubscriptions().contains("b") })
        let publishedBefore = n1.messageCounts().published
        let start = ContinuousClock.now
        for value in 0..<100 { n1.dispatch(.set(topic: "b", value: "\(value)")) }
        let dispatchTime = ContinuousClock.now - start
        #expect(await eventually { n2.state.follows["burst"]?.lastValue == "99" }, "the last value always arrives")
        try await Task.sleep(for: .milliseconds(250))
        let feedMessages = n2.state.follows["burst"]?.count ?? 0
        #expect(feedMessages <= 2, "100 sets in \(dispatchTime) published \(feedMessages) messages")
        #expect(n1.messageCounts().published - publishedBefore >= feedMessages)
        await n2.stop()
        await n1.stop()
    }

    @Test func publishingTwiceSendsTwice() async throws {
        let n1 = try startNode("n1")
        let n2 = try startNode("n2", peers: ["n1": n1.pubEndpoint])
        n2.dispatch(.follow(name: "chat", topic: "chat", from: nil))
        #expect(await eventually { n1.publisherSubscriptions().contains("chat") })
        n1.dispatch(.publish(topic: "chat", payload: "hi"))
        n1.dispatch(.publish(topic: "chat", payload: "hi"))
        #expect(await eventually { n2.state.follows["chat"]?.count == 2 })
        #expect(n2.state.follows["chat"]?.gaps == 0)
        await n2.stop()
        await n1.stop()
    }

    @Test func aBurstLargerThanTheOutboxArrivesCompleteAndInOrder() async throws {
        // Published messages wait in the outbox until the reactor's turn ends or the outbox is
        // full: a burst of several outboxes' worth must arrive whole, in order, without gaps.
        let n1 = try startNode("n1")
        let n2 = try startNode("n2", peers: ["n1": n1.pubEndpoint])
        n2.dispatch(.follow(name: "burst", topic: "burst", from: nil))
        #expect(await eventually { n1.publisherSubscriptions().contains("burst") })
        let count = NodeIO.outboxLimit * 10 + 7   // dispatched faster than processed: big batches
        for n in 1...count { n1.dispatch(.publish(topic: "burst", payload: "m\(n)")) }
        #expect(await eventually(.seconds(20)) { n2.state.follows["burst"]?.count == count })
        let follow = try #require(n2.state.follows["burst"])
        #expect(follow.gaps == 0 && follow.lastValue == "m\(count)")
        #expect(n1.outboxPeak() == NodeIO.outboxLimit, "a full outbox is flushed mid-turn, and only then")
        await n2.stop()
        await n1.stop()
    }

    @Test func aStoppedNodeGoesSuspectThenGoneOnItsPeers() async throws {
        let n1 = try startNode("n1", heartbeatMs: 40)
        let n2 = try startNode("n2", peers: ["n1": n1.pubEndpoint], heartbeatMs: 40)
        #expect(await eventually { n2.state.peers["n1"]?.status == .alive })
        await n1.stop()
        #expect(await eventually { n2.state.peers["n1"]?.status == .suspect }, "suspect after 2 missed beats")
        #expect(await eventually { n2.state.peers["n1"]?.status == .gone }, "gone after 5")
        await n2.stop()
    }

    @Test func stoppingANodeRunsEveryChannelsCancelAndClosesItsSockets() async throws {
        let fdsBefore = openFileDescriptors()
        let n1 = try startNode("n1")
        n1.dispatch(.set(topic: "x", value: "1"))
        n1.dispatch(.follow(name: "f", topic: "y", from: nil))
        #expect(await eventually { n1.state.follows["f"] != nil && n1.state.feeds["x"] != nil })
        #expect(await eventually { (await n1.store.keep()).channels.count == 5 })
        await n1.stop()
        #expect(n1.socketCounts().open == 0)
        let counters = await n1.store.keep().counters
        #expect(counters.opens == counters.cancels, "every open channel was cancelled once")
        #expect(await eventually { openFileDescriptors() <= fdsBefore })
    }

    @Test func topicsAreFramedSoAnExactFollowNeverMatchesALongerTopic() async throws {
        let n1 = try startNode("n1")
        let n2 = try startNode("n2", peers: ["n1": n1.pubEndpoint])
        n2.dispatch(.follow(name: "exact", topic: "a.b", from: nil))
        n2.dispatch(.follow(name: "prefix", topic: "a.*", from: nil))
        #expect(await eventually { n1.publisherSubscriptions().isSuperset(of: ["a.b", "a.*"]) })
        n1.dispatch(.publish(topic: "a.bc", payload: "longer"))
        n1.dispatch(.publish(topic: "a.b", payload: "exact"))
        #expect(await eventually { n2.state.follows["exact"]?.count == 1 && n2.state.follows["prefix"]?.count == 2 })
        #expect(n2.state.follows["exact"]?.lastValue == "exact", "a.bc never reached the a.b follow")
        #expect(n2.state.follows["prefix"]?.lastTopic == "a.b")
        await n2.stop()
        await n1.stop()
    }

    @Test func aFollowerThatSubscribesAfterTheValueWasPublishedStillGetsIt() async throws {
        let n1 = try startNode("n1")
        let n2 = try startNode("n2", peers: ["n1": n1.pubEndpoint])
        let n3 = try startNode("n3", peers: ["n1": n1.pubEndpoint])
        n1.dispatch(.set(topic: "late.topic", value: "current"))
        #expect(await eventually { n1.messageCounts().published >= 1 })
        n2.dispatch(.follow(name: "late", topic: "late.topic", from: nil))
        n3.dispatch(.follow(name: "late", topic: "late.topic", from: "n1"))
        #expect(await eventually { n2.state.follows["late"]?.lastValue == "current" }, "replayed to the shared socket")
        #expect(await eventually { n3.state.follows["late"]?.lastValue == "current" }, "replayed to a dedicated socket")
        await n3.stop()
        n1.dispatch(.unset(topic: "late.topic"))
        n2.dispatch(.unfollow(name: "late"))
        #expect(await eventually { n1.state.feeds.isEmpty && !n1.publisherSubscriptions().contains("late.topic") })
        n2.dispatch(.follow(name: "again", topic: "late.topic", from: nil))
        #expect(await eventually { n1.publisherSubscriptions().contains("late.topic") })
        n1.dispatch(.publish(topic: "late.topic", payload: "marker"))
        #expect(await eventually { n2.state.follows["again"]?.lastValue == "marker" })
        #expect(n2.state.follows["again"]?.count == 1, "an unset feed is not replayed, only the marker arrived")
        await n2.stop()
        await n1.stop()
    }

    @Test func gapsCountWithinOneSubscriptionOnly() async throws {
        let node = try startNode("g1")
        func receive(_ topic: String, _ sequence: UInt64) {
            node.dispatch(.received(name: "f", messages: [Received(topic: topic, sender: "p", sequence: sequence, value: "\(sequence)")]))
        }
        node.dispatch(.follow(name: "f", topic: "a", from: nil))
        receive("a", 1)
        receive("a", 3)
        #expect(await eventually { node.state.follows["f"]?.count == 2 })
        #expect(node.state.follows["f"]?.gaps == 1, "sequence 2 was missed")
        node.dispatch(.follow(name: "f", topic: "b", from: nil))
        receive("b", 40)
        node.dispatch(.follow(name: "f", topic: "a", from: nil))
        receive("a", 9)
        #expect(await eventually { node.state.follows["f"]?.count == 4 })
        #expect(node.state.follows["f"]?.gaps == 1, "messages sent while following another topic are not gaps")
        await node.stop()
    }
}
