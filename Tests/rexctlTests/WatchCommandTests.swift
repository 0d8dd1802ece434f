import Foundation
import RexCluster
import RexControl
import RexFeeds
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
    /// Standard output that signals its first write: the watch's first draw.
    final class DrawSignallingOutput: TextOutput, @unchecked Sendable {
        // @unchecked Sendable: written only by the rexctl thread that runs the watch; `text` is
        // read after that thread has returned (the test awaits it), `drawn` is a semaphore.
        let drawn = DispatchSemaphore(value: 0)
        private(set) var text = ""
        var isTerminal: Bool { false }

        func write(_ text: String) {
            if self.text.isEmpty { drawn.signal() }
            self.text += text
        }
    }

    @Test func keepWatchRedrawsAndWaitEndsOnTheChange() async throws {
        // The change comes once the node registered both watches (it logs each, at debug) and
        // the watch drew the keep set it was first sent.
        let watchesStarted = DispatchSemaphore(value: 0)
        let logger = NodeLogger(
            nodeID: "n1", level: .debug, sink: { line in if line.contains("event=watch_started") { watchesStarted.signal() } })
        let node = try Node.start(
            NodeConfiguration(
                id: "n1", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
                settings: NodeSettings(feedIntervalMs: 20, followSettleMs: 10), logLevel: .error),
            logger: logger)
        let options = ["--node", "n1=\(node.controlEndpoint)"]
        let watchOutput = DrawSignallingOutput()
        async let watchCode = withCheckedContinuation { continuation in
            Thread {
                continuation.resume(
                    returning: RexCtl.main(
                        arguments: ["keep", "n1", "--watch", "--timeout", "3s"] + options, environment: emptyEnvironment,
                        stdout: watchOutput, stderr: BufferOutput()))
            }.start()
        }
        async let waiting = cli(["wait", "n1", "--for", "keep=follow[late]", "--timeout", "10s"] + options)
        let ready = await withCheckedContinuation { continuation in
            Thread {
                let deadline = DispatchTime.now() + .seconds(10)
                let registered = (0..<2).allSatisfy { _ in watchesStarted.wait(timeout: deadline) == .success }
                continuation.resume(returning: registered && watchOutput.drawn.wait(timeout: deadline) == .success)
            }.start()
        }
        #expect(ready, "the watch and the wait were registered at the node, and the watch drew its first keep set")
        node.dispatch(.follow(name: "late", topic: "t", from: nil))
        let (code, wait) = await (watchCode, waiting)
        #expect(wait.code == 0, "\(wait)")
        #expect(wait.stdout.hasPrefix("n1: keep=follow[late] holds (after "), "\(wait)")
        #expect(code == 0, "\(watchOutput.text)")
        let draws = watchOutput.text.components(separatedBy: "\n\n").filter { $0.hasPrefix("ID ") }
        #expect(draws.count >= 2, "\(watchOutput.text)")
        #expect(draws.first.map { !$0.contains("follow[late]") } == true)
        #expect(draws.last?.contains("follow[late]") == true)
        await node.stop()
    }
}
