import Foundation
import NodeTestSupport
import RexCluster
import RexControl
import RexFeeds
import RexNode
import Testing

/// A state document's `nowMs` is the node's uptime as it answered (or built a watch push), not
/// the time of its membership's last report: on a quiet node, which never gets one, it still
/// moves. Ordered against pings on the node's own clock, never against wall time.
@Suite(.serialized) struct StateClockTests {
    private func reply<Document: Decodable>(_ text: String?, _ type: Document.Type) throws -> Document {
        try ReceivedReply(Array(try #require(text).utf8)).result(type).get()
    }

    private func uptime(_ client: RawControlClient) async throws -> Int {
        try reply(try await client.request(#"{"v": 1, "op": "ping"}"#), PingDocument.self).uptimeMs
    }

    /// Pings until the node's uptime is past `ms`; returns that uptime.
    private func uptime(after ms: Int, _ client: RawControlClient) async throws -> Int {
        var uptime = 0
        #expect(
            await eventually {
                uptime = (try? await self.uptime(client)) ?? 0
                return uptime > ms
            })
        return uptime
    }

    @Test func stateRepliesCarryTheUptimeOfTheirRequest() async throws {
        let node = try startQuietNode("c1")
        let client = try RawControlClient(node.controlEndpoint)
        defer { client.close() }
        let before = try await uptime(client)
        let first = try reply(try await client.request(#"{"v": 1, "op": "state"}"#), NodeState.self)
        let between = try await uptime(after: first.nowMs, client)
        let second = try reply(try await client.request(#"{"v": 1, "op": "state"}"#), NodeState.self)
        #expect(first.peers.isEmpty && second.peers.isEmpty, "no peer: no membership report")
        #expect(before <= first.nowMs, "not older than a ping answered before it (\(before) ms, \(first.nowMs) ms)")
        #expect(second.nowMs >= between, "not older than a ping answered before it (\(between) ms, \(second.nowMs) ms)")
        #expect(second.nowMs > first.nowMs)
        await node.stop()
    }

    @Test func watchPushesCarryTheUptimeTheyWereBuiltAt() async throws {
        let node = try startQuietNode("c2")
        let pings = try RawControlClient(node.controlEndpoint)
        let watcher = try RawControlClient(node.controlEndpoint)
        defer {
            pings.close()
            watcher.close()
        }
        let before = try await uptime(pings)
        let first = try reply(try await watcher.request(#"{"v": 1, "op": "watch", "documents": ["state"]}"#), WatchDocument<NodeState>.self)
        let firstState = try #require(first.state)
        #expect(before <= firstState.nowMs, "the first push: \(before) ms, \(firstState.nowMs) ms")

        let between = try await uptime(after: firstState.nowMs, pings)
        node.dispatch(.set(topic: "t", value: "1"))
        var pushed: NodeState?
        for _ in 0..<20 where pushed?.feeds["t"] == nil {
            pushed = try reply(try await watcher.next(), WatchDocument<NodeState>.self).state ?? pushed
        }
        let changed = try #require(pushed)
        #expect(changed.feeds["t"]?.value == "1")
        #expect(changed.nowMs >= between, "the push after the change: \(between) ms, \(changed.nowMs) ms")
        await node.stop()
    }
}
