import Foundation
import NodeTestSupport
import RexCluster
import RexControl
import RexFeeds
import RexNode
import SharedTestSupport
import Testing

/// The `watch` op against a node in-process: the first push, a push per change, unwatch,
/// leases, the watcher limit and clients that vanish.
@Suite(.serialized) struct WatchTests {
    func decode(_ text: String?) throws -> (id: JSONValue?, watch: WatchDocument<NodeState>) {
        let reply = ReceivedReply(Array(try #require(text).utf8))
        return (reply.id, try reply.result(WatchDocument<NodeState>.self).get())
    }

    @Test func firstPushThenOnePushPerChange() async throws {
        let node = try startQuietNode("w1")
        let client = try RawControlClient(node.controlEndpoint)
        defer { client.close() }
        let (id, first) = try decode(try await client.request(#"{"v": 1, "id": "w", "op": "watch", "documents": ["keep", "state"]}"#))
        #expect(id == .string("w"))
        #expect(first.sequence == 1 && first.leaseMs == WatchPolicy.defaultLeaseMs)
        #expect(first.state?.id == "w1" && first.state?.feeds.isEmpty == true)
        #expect(first.keep?.channels.map(\.id).contains("pub") == true)

        node.dispatch(.set(topic: "eu.prices", value: "42"))
        var sequence = 1
        var feedSeen = false
        var liveFeed = false
        while !(feedSeen && liveFeed) {
            let (pushID, push) = try decode(try await client.next())
            #expect(pushID == .string("w"))
            sequence += 1
            #expect(push.sequence == sequence, "pushes are numbered without gaps")
            if let state = push.state { feedSeen = state.feeds["eu.prices"]?.value == "42" }
            if let keep = push.keep { liveFeed = keep.channels.contains { $0.id == "feed[eu.prices]" && $0.status == .live } }
        }
        await node.stop()
    }

    /// A settle ends without a batch of actions: the watch still sees the channel go live.
    @Test func keepPushesFollowSettlesToLive() async throws {
        let node = try startQuietNode("w2")
        let client = try RawControlClient(node.controlEndpoint)
        defer { client.close() }
        _ = try decode(try await client.request(#"{"v": 1, "id": "k", "op": "watch", "documents": ["keep"]}"#))
        node.dispatch(.follow(name: "prices", topic: "eu.prices", from: nil))
        var statuses: [KeepDocument.Channel.Status] = []
        while statuses.last != .live {
            let push = try decode(try await client.next()).watch
            #expect(push.state == nil, "only what is watched")
            if let channel = push.keep?.channels.first(where: { $0.id == "follow[prices]" }) { statuses.append(channel.status) }
        }
        await node.stop()
    }

    @Test func changesCoalesceToAtMostOnePushPerInterval() async throws {
        let node = try startQuietNode("w3")
        let client = try RawControlClient(node.controlEndpoint)
        defer { client.close() }
        _ = try decode(try await client.request(#"{"v": 1, "id": "s", "op": "watch", "documents": ["state"]}"#))
        let start = ContinuousClock.now
        for value in 1...2_000 { node.dispatch(.set(topic: "t", value: "\(value)")) }
        var pushes = 0
        var last: String?
        while last != "2000" {
            let push = try decode(try await client.next()).watch
            pushes += 1
            last = push.state?.feeds["t"]?.value
        }
        let elapsed = ContinuousClock.now - start
        let allowed = Int(elapsed / .milliseconds(WatchPolicy.pushIntervalMs)) + 2
        #expect(pushes <= allowed, "\(pushes) pushes in \(elapsed)")
        await node.stop()
    }

    @Test func unwatchStopsThePushes() async throws {
        let node = try startQuietNode("w4")
        let client = try RawControlClient(node.controlEndpoint)
        defer { client.close() }
        _ = try decode(try await client.request(#"{"v": 1, "id": "s", "op": "watch", "documents": ["state"]}"#))
        #expect(
            try await client.request(#"{"v": 1, "id": "u", "op": "unwatch", "watch": "s"}"#)
                == #"{"id":"u","ok":true,"result":{"unwatched":1},"v":1}"#)
        node.dispatch(.set(topic: "t", value: "1"))
        #expect(await waitFor(node) { $0.feeds["t"] != nil })
        #expect(try await client.next(timeout: .milliseconds(300)) == nil, "no push after unwatch")
        #expect(try await client.request(#"{"v": 1, "id": "r", "op": "renew"}"#) == #"{"id":"r","ok":true,"result":{"renewed":0},"v":1}"#)
        await node.stop()
    }

    /// Watches are bounded (64 per node), and a lease that is not renewed ends its watch and
    /// frees its place, while a renewed one lives on: 64 watches with a 3 s lease (64 requests in
    /// a row took over 1 s on a loaded 2-core machine running the whole suite), one of them
    /// renewed all along; the others expire and a new watch gets in.
    @Test func watchersAreBoundedAndOnlyRenewedLeasesLiveOn() async throws {
        let node = try startQuietNode("w5")
        let client = try RawControlClient(node.controlEndpoint)
        defer { client.close() }
        _ = try decode(try await client.request(#"{"v": 1, "id": "a", "op": "watch", "documents": ["state"], "leaseMs": 3000}"#))
        for index in 1..<WatchPolicy.maxWatchers {
            _ = try decode(try await client.request(#"{"v": 1, "id": \#(index), "op": "watch", "documents": ["state"], "leaseMs": 3000}"#))
        }
        let other = try RawControlClient(node.controlEndpoint)
        defer { other.close() }
        let refused = try #require(try await other.request(#"{"v": 1, "id": "x", "op": "watch", "documents": ["state"]}"#))
        #expect(refused.hasPrefix(#"{"error":{"code":"limitReached","message":"this node serves 64 watches, its limit"#), "\(refused)")
        var renewedAll = true
        #expect(
            await eventually(.seconds(10)) {
                let renewed = try? await client.request(#"{"v": 1, "id": "r", "op": "renew", "watch": "a"}"#)
                renewedAll = renewedAll && renewed == #"{"id":"r","ok":true,"result":{"renewed":1},"v":1}"#
                let attempt = try? await other.request(#"{"v": 1, "id": "x", "op": "watch", "documents": ["state"]}"#)
                return attempt?.contains(#""ok":true"#) == true
            }, "the expired leases made room")
        #expect(renewedAll, "the renewed watch lived on throughout")
        #expect(
            try await client.request(#"{"v": 1, "id": "r", "op": "renew", "watch": 1}"#)
                == #"{"id":"r","ok":true,"result":{"renewed":0},"v":1}"#, "an unrenewed watch expired")
        await node.stop()
    }

    /// ROUTER cannot see a client leave; a push to it fails, and the watcher is dropped at once.
    @Test func aVanishedClientIsDroppedAtItsNextPush() async throws {
        let drops = Arrivals()
        let logger = NodeLogger(nodeID: "w7", level: .warning, sink: { line in if line.contains("event=watch_dropped") { drops.signal() } })
        let node = try startQuietNode("w7", logger: logger)
        let gone = try RawControlClient(node.controlEndpoint)
        for index in 0..<WatchPolicy.maxWatchers {
            _ = try decode(try await gone.request(#"{"v": 1, "id": \#(index), "op": "watch", "documents": ["state"]}"#))
        }
        gone.close()
        node.dispatch(.set(topic: "t", value: "1"))
        #expect(await drops.wait(for: WatchPolicy.maxWatchers), "the vanished client's 64 watches were dropped at their push")
        let client = try RawControlClient(node.controlEndpoint)
        defer { client.close() }
        let reply = try await client.request(#"{"v": 1, "id": "x", "op": "watch", "documents": ["state"]}"#)
        #expect(reply?.contains(#""ok":true"#) == true, "a new watch has room: \(String(describing: reply))")
        await node.stop()
    }

    @Test(arguments: [
        (#"{"v": 1, "op": "watch"}"#, "field 'documents' must list what to watch (keep, state)"),
        (#"{"v": 1, "op": "watch", "documents": []}"#, "field 'documents' must list what to watch (keep, state)"),
        (#"{"v": 1, "op": "watch", "documents": ["metrics"]}"#, "unknown document 'metrics' to watch (expected keep, state)"),
        (
            #"{"v": 1, "op": "watch", "documents": ["state"], "leaseMs": 5}"#,
            "field 'leaseMs' must be a whole number of milliseconds from 1000 to 60000"
        ),
        (
            #"{"v": 1, "op": "watch", "documents": ["state"], "leaseMs": "10s"}"#,
            "field 'leaseMs' must be a whole number of milliseconds from 1000 to 60000"
        ),
    ])
    func malformedWatchesAreRefused(request: String, message: String) async throws {
        let node = try startQuietNode("w8")
        let client = try RawControlClient(node.controlEndpoint)
        defer { client.close() }
        #expect(try await client.request(request) == #"{"error":{"code":"badRequest","message":"\#(message)"},"id":null,"ok":false,"v":1}"#)
        await node.stop()
    }
}
