import Foundation
import RexControl
import RexNode
import Synchronization
import Testing

@testable import rexctl

/// `wait` and `keep --watch` ride on the node's watch op: one request, then pushes — no polling.
@Suite(.serialized) struct WatchCommandTests {
    /// What a canned node was asked, op by op.
    final class Requests: Sendable {
        let operations = Mutex<[String]>([])
        func record(_ operation: String) { operations.withLock { $0.append(operation) } }
        var all: [String] { operations.withLock { $0 } }
    }

    @Test func waitSendsOneWatchInsteadOfPolling() async throws {
        let requests = Requests()
        let state = try String(decoding: ControlCodec.encode(NodeState(id: "n1")), as: UTF8.self)
        let node = try CannedNode { operation, id in
            requests.record(operation)
            let result =
                switch operation {
                case "watch": #"{"leaseMs":10000,"sequence":1,"state":\#(state)}"#
                case "unwatch": #"{"unwatched":1}"#
                default: #"{"renewed":1}"#
                }
            return CannedNode.success(id: id, result: result)
        }
        defer { node.stop() }
        let result = await cli(["wait", "n1", "--for", "state=id=n2", "--timeout", "800ms", "--node", "n1=\(node.endpoint)"])
        #expect(result.code == 1, "\(result)")
        #expect(result.stderr == "Error: n1: state=id=n2 did not hold within 800ms (last seen: id is n1)\n")
        #expect(requests.all == ["watch", "unwatch"], "a poller would have asked for the state every 100 ms")
    }

    /// Against real nodes: the watch redraws when a channel appears, and a wait started before
    /// the change ends right after it.
    @Test func keepWatchRedrawsAndWaitEndsOnTheChange() async throws {
        // The node logs each watch it registers (at debug): the change comes once both are.
        let watchesStarted = DispatchSemaphore(value: 0)
        let logger = NodeLogger(
            nodeID: "n1", level: .debug, sink: { line in if line.contains("event=watch_started") { watchesStarted.signal() } })
        let node = try Node.start(
            NodeConfiguration(
                id: "n1", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
                settings: NodeSettings(feedIntervalMs: 20, followSettleMs: 10), logLevel: .error),
            logger: logger)
        let options = ["--node", "n1=\(node.controlEndpoint)"]
        async let watching = cli(["keep", "n1", "--watch", "--timeout", "3s"] + options)
        async let waiting = cli(["wait", "n1", "--for", "keep=follow[late]", "--timeout", "10s"] + options)
        let bothWatching = await withCheckedContinuation { continuation in
            Thread {
                let deadline = DispatchTime.now() + .seconds(10)
                continuation.resume(returning: (0..<2).allSatisfy { _ in watchesStarted.wait(timeout: deadline) == .success })
            }.start()
        }
        #expect(bothWatching, "the watch and the wait were registered at the node")
        node.dispatch(.follow(name: "late", topic: "t", from: nil))
        let (watch, wait) = await (watching, waiting)
        #expect(wait.code == 0, "\(wait)")
        #expect(wait.stdout.hasPrefix("n1: keep=follow[late] holds (after "), "\(wait)")
        #expect(watch.code == 0, "\(watch)")
        let draws = watch.stdout.components(separatedBy: "\n\n").filter { $0.hasPrefix("ID ") }
        #expect(draws.count >= 2, "\(watch.stdout)")
        #expect(draws.first.map { !$0.contains("follow[late]") } == true)
        #expect(draws.last?.contains("follow[late]") == true)
        await node.stop()
    }
}
