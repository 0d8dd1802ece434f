import RexControl
import ZMQ

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// Runs `body` on the thread of a fresh reactor with a node's I/O (its publisher bound on a free
/// loopback port, its shared subscriber), and closes and stops all of it afterwards.
func onNodeIO<Value: Sendable>(_ name: String, _ body: @escaping @Sendable (NodeIO) throws -> Value) throws -> Value {
    let context = try ZMQContext()
    let reactor = Reactor(name: name)
    defer {
        reactor.stop()
        try? context.terminate(timeout: .seconds(1))
    }
    let log = NodeLogger(nodeID: "t", level: .error, sink: { _ in })
    return try reactor.sync {
        let io = try NodeIO(
            nodeID: "t", epoch: 1, limits: NodeLimits(), context: context, reactor: reactor, pubEndpoint: "tcp://127.0.0.1:*",
            log: log)
        defer { io.close() }
        return try body(io)
    }
}
