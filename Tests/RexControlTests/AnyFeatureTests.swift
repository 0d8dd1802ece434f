import Foundation
import NodeTestSupport
import RexCluster
import RexControl
import RexNode
import SwiftRex
import Testing

/// The runtime with a feature it does not know: the control protocol carries the feature's
/// actions and state, `ping` and the metrics name it, a request for an action it does not have
/// is refused naming the ones it has, and with a data directory its actions survive a restart.
@Suite(.serialized) struct AnyFeatureTests {
    private func start(_ id: String, directory: String? = nil) throws -> RexNode.Node<Tally> {
        var configuration = NodeConfiguration(
            id: id, pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
            settings: NodeSettings(feedIntervalMs: 100, followSettleMs: 10, limits: NodeLimits(maxFeeds: 2)), logLevel: .error)
        configuration.durable = directory.map { DurableOptions(directory: $0) }
        return try RexNode.Node<Tally>.start(configuration)
    }

    @Test func theControlProtocolCarriesTheFeaturesActionsAndState() async throws {
        let node = try start("t1")
        let client = try RawControlClient(node.controlEndpoint)
        defer { client.close() }

        let ping = try #require(try await client.request(#"{"v": 1, "op": "ping"}"#))
        #expect(ping.contains(#""feature":{"name":"tally","version":"3"}"#), "\(ping)")

        let accepted = try #require(try await client.request(#"{"v": 1, "op": "dispatch", "action": {"type": "mark", "key": "a"}}"#))
        #expect(accepted.contains(#""accepted":true,"action":{"key":"a","type":"mark"}"#), "\(accepted)")
        let unknown = try #require(try await client.request(#"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "x"}}"#))
        #expect(unknown.contains(#""code":"unknownAction""#) && unknown.contains("mark, clear"), "\(unknown)")
        // The feature's limit, through its resource: a third key is refused before it is queued.
        _ = try await client.request(#"{"v": 1, "op": "dispatch", "action": {"type": "mark", "key": "b"}}"#)
        // A node without a journal checks room against its store's state, which takes the queued
        // actions a moment later (the reducer's own check is the feature's): wait for them.
        await node.store.waitUntilIdle()
        let full = try #require(try await client.request(#"{"v": 1, "op": "dispatch", "action": {"type": "mark", "key": "c"}}"#))
        #expect(full.contains(#""code":"limitReached""#), "\(full)")

        await node.store.waitUntilIdle()
        let state = try #require(try await client.request(#"{"v": 1, "op": "state"}"#))
        #expect(state.contains(#""result":{"marked":["#) && state.contains(#""node":"t1""#), "\(state)")
        #expect(node.state.marked == ["a", "b"])

        let metrics = try #require(try await client.request(#"{"v": 1, "op": "metrics"}"#))
        #expect(metrics.contains(#""feature":{"name":"tally","version":"3"}"#), "\(metrics)")
        // No classifier: totals only, no per-kind counts.
        #expect(!metrics.contains("liveByKind"), "\(metrics)")
        await node.stop()
    }

    @Test func aDurableNodeOfAnyFeatureRestoresItsOperatorsActions() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tally-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try start("t2", directory: directory)
        let client = try RawControlClient(first.controlEndpoint)
        for request in [
            #"{"v": 1, "op": "dispatch", "action": {"type": "mark", "key": "a"}}"#,
            #"{"v": 1, "op": "dispatch", "action": {"type": "mark", "key": "b"}}"#,
            #"{"v": 1, "op": "dispatch", "action": {"type": "clear", "key": "a"}}"#,
        ] {
            let reply = try #require(try await client.request(request))
            #expect(reply.contains(#""accepted":true"#), "\(reply)")
        }
        client.close()
        await first.stop()

        let second = try start("t2", directory: directory)
        #expect(second.state == Tally.State(node: "t2", marked: ["b"]))
        await second.stop()
    }
}
