import Foundation
import NodeTestSupport
import RexControl
import SwiftRex
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// Nodes in one process over real sockets on loopback: what only the runtime can show — wire
/// framing, snapshots over shared and dedicated sockets, the outbox, routing a live stream while
/// routes change, and closing everything. The behavior itself is tested without sockets in
/// `NodeFeatureTests`.
@Suite(.serialized) struct NodeClusterTests {
    /// A feed set before anyone follows reaches a shared-socket follow and a dedicated one by
    /// snapshot, then a new value live; the dedicated follow owns one socket, freed on unfollow.
    @Test func feedsReachSharedAndDedicatedFollowersBySnapshotThenLive() async throws {
        let n1 = try startNode("n1")
        let n2 = try startNode("n2", peers: ["n1": n1])
        n1.dispatch(.set(topic: "late.topic", value: "current"))
        #expect(await waitFor(n1) { $0.feeds["late.topic"] != nil })
        let socketsBefore = n2.socketCounts().open
        n2.dispatch(.follow(name: "shared", topic: "late.topic", from: nil))
        n2.dispatch(.follow(name: "direct", topic: "late.topic", from: "n1"))
        #expect(await waitFor(n2) { $0.follows["shared"]?.lastValue == "current" && $0.follows["direct"]?.lastValue == "current" })
        #expect(n2.socketCounts().open == socketsBefore + 1, "the dedicated follow owns one socket")
        n1.dispatch(.set(topic: "late.topic", value: "next"))
        #expect(await waitFor(n2) { $0.follows["shared"]?.lastValue == "next" && $0.follows["direct"]?.lastValue == "next" })
        for name in ["shared", "direct"] {
            let follow = try #require(n2.state.follows[name])
            #expect(follow.count == 2 && follow.gaps == 0 && follow.lastSender == "n1", "\(name): the snapshot, then one live value")
        }
        n2.dispatch(.unfollow(name: "direct"))
        // The observer runs after the batch's reconcile, which closed the dedicated socket.
        #expect(await waitFor(n2) { $0.follows["direct"] == nil })
        #expect(n2.socketCounts().open == socketsBefore)
        await n2.stop()
        await n1.stop()
    }

    @Test func aBurstLargerThanTheOutboxArrivesCompleteAndInOrder() async throws {
        // Published messages wait in the outbox until the reactor's turn ends or the outbox is
        // full: a burst of several outboxes' worth must arrive whole, in order, without gaps.
        let n1 = try startNode("n1")
        let n2 = try startNode("n2", peers: ["n1": n1])
        n2.dispatch(.follow(name: "burst", topic: "burst", from: nil))
        #expect(await waitUntilSubscriptionsArrive(from: n2, at: n1, marker: "marker"))
        #expect(n1.publisherSubscriptions().contains("burst"))
        let count = NodePublisher.outboxLimit * 10 + 7  // dispatched faster than processed: big batches
        for n in 1...count { n1.dispatch(.publish(topic: "burst", payload: "m\(n)")) }
        #expect(await waitFor(n2) { $0.follows["burst"]?.count == count })
        let follow = try #require(n2.state.follows["burst"])
        #expect(follow.gaps == 0 && follow.lastValue == "m\(count)")
        #expect(n1.outboxPeak() == NodePublisher.outboxLimit, "a full outbox is flushed mid-turn, and only then")
        await n2.stop()
        await n1.stop()
    }

    /// The shared subscriber hands its directives over in batches and at the end of each turn:
    /// a burst of follows and then of unfollows (several batches' worth, not a multiple of one)
    /// must reach the peer's publisher exactly, whichever flush carries each directive.
    @Test func subscriptionsBatchedByTheSharedSubscriberAllReachThePublisher() async throws {
        let n1 = try startNode("n1")
        let n2 = try startNode("n2", peers: ["n1": n1])
        let topics = (0..<(SubscriptionDirectiveQueue.batch + 37)).map { "b.\($0)" }
        for topic in topics { n2.dispatch(.follow(name: topic, topic: topic, from: nil)) }
        #expect(await waitUntilSubscriptionsArrive(from: n2, at: n1, marker: "marker.1"))
        #expect(n1.publisherIsSubscribed(toAll: topics))
        #expect(n1.publisherSubscriptions() == Set(topics + ["marker.1"]))
        #expect(!n1.publisherIsSubscribed(toAll: topics + ["b.absent"]))
        for topic in topics.dropFirst() + ["marker.1"] { n2.dispatch(.unfollow(name: topic)) }
        #expect(await waitUntilSubscriptionsArrive(from: n2, at: n1, marker: "marker.2"))
        #expect(n1.publisherSubscriptions() == [topics[0], "marker.2"])
        #expect(n2.socketCounts().sharedSubscriptions == 2)
        await n2.stop()
        await n1.stop()
    }

    /// A stream of one topic is routed from a cache of its targets: routes joining or leaving
    /// mid-stream (exact and prefix) must get exactly the messages after them. Also: an exact
    /// follow never matches a longer topic, a prefix follow does (the wire's NUL framing).
    @Test func followsJoiningOrLeavingMidStreamGetExactlyTheMessagesAfterThem() async throws {
        let n1 = try startNode("n1")
        let n2 = try startNode("n2", peers: ["n1": n1])
        n2.dispatch(.follow(name: "first", topic: "s.x", from: nil))
        #expect(await waitUntilSubscriptionsArrive(from: n2, at: n1, marker: "marker.1"))
        for n in 1...3 { n1.dispatch(.publish(topic: "s.x", payload: "m\(n)")) }
        #expect(await waitFor(n2) { $0.follows["first"]?.count == 3 })

        n2.dispatch(.follow(name: "second", topic: "s.x", from: nil))
        n2.dispatch(.follow(name: "all", topic: "s.*", from: nil))
        // Their channels open before the marker's (they settle first), and their routes with them.
        #expect(await waitUntilSubscriptionsArrive(from: n2, at: n1, marker: "marker.2"))
        #expect(n1.publisherSubscriptions().contains("s.*"))
        for n in 4...5 { n1.dispatch(.publish(topic: "s.x", payload: "m\(n)")) }
        n1.dispatch(.publish(topic: "s.xy", payload: "longer"))
        #expect(await waitFor(n2) { $0.follows["all"]?.count == 3 && $0.follows["second"]?.count == 2 && $0.follows["first"]?.count == 5 })
        #expect(n2.state.follows["second"]?.lastValue == "m5", "s.xy never reached an exact follow of s.x")
        #expect(n2.state.follows["all"]?.lastTopic == "s.xy")

        n2.dispatch(.unfollow(name: "first"))
        n2.dispatch(.unfollow(name: "all"))
        #expect(await waitFor(n2) { $0.follows["first"] == nil && $0.follows["all"] == nil })
        n1.dispatch(.publish(topic: "s.x", payload: "m6"))
        #expect(await waitFor(n2) { $0.follows["second"]?.count == 3 })
        #expect(n2.state.follows["second"]?.lastValue == "m6")
        await n2.stop()
        await n1.stop()
    }

    @Test func stoppingANodeRunsEveryChannelsCancelAndClosesItsSockets() async throws {
        let n1 = try startNode("n1")
        n1.dispatch(.set(topic: "x", value: "1"))
        n1.dispatch(.follow(name: "f", topic: "y", from: nil))
        #expect(await waitFor(n1) { $0.follows["f"] != nil && $0.feeds["x"] != nil })
        await n1.store.waitUntilIdle()
        #expect(await n1.store.keep().channels.count == 4, "publisher, membership, the feed and the follow")
        await n1.stop()
        #expect(n1.socketCounts().open == 0)
        let counters = await n1.store.keep().counters
        #expect(counters.opens == counters.cancels, "every open channel was cancelled once")
    }
}
