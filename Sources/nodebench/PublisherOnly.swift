import Foundation
import RexFeeds
import RexNode

/// `nodebench pub <count>`: one node, no follower, N `publish` actions dispatched from this
/// thread; timed until the node has sent them all. Separates the publishing node's own cost
/// (store, engine, socket send) from the end-to-end figure.
enum PublisherOnly {
    static func run(count: Int) async throws {
        let node = try Node.start(
            NodeConfiguration(
                id: "p", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
                logLevel: .warning))
        let before = node.messageCounts().published
        let t0 = nowNanoseconds()
        for _ in 0..<count { node.dispatch(.publish(topic: NodeThroughput.topic, payload: NodeThroughput.payload)) }
        let tDispatched = nowNanoseconds()
        let complete = waitUntil(timeout: 30, pause: 200) { node.messageCounts().published - before >= count }
        let t1 = nowNanoseconds()
        let seconds = Double(t1 - t0) / 1e9
        emit(
            String(
                format: "NODEPUB count=%d complete=%d secs=%.4f msg_s=%.0f dispatch_s=%.0f",
                count, complete ? 1 : 0, seconds, Double(count) / seconds, Double(count) / (Double(tDispatched - t0) / 1e9)))
        await node.stop()
    }
}
