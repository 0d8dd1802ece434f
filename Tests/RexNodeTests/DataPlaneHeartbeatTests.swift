import RexControl
import Testing
import ZMQ

@testable import RexNode

/// The data plane carries no ZMTP heartbeats: the SWIM membership drops a dead member's
/// connections, and heartbeats would cost a wake-up and a frame on each of a node's 2 (N − 1)
/// connections every interval.
@Suite struct DataPlaneHeartbeatTests {
    /// An interval of zero is libzmq's "send no PING" (its default; the timeout then never runs).
    @Test func aNodesPublisherAndSharedSubscriberSendNoPings() throws {
        let context = try ZMQContext()
        let reactor = Reactor(name: "data-plane-heartbeat-test")
        defer {
            reactor.stop()
            try? context.terminate(timeout: .seconds(1))
        }
        let log = NodeLogger(nodeID: "t", level: .error, sink: { _ in })
        let intervals = try reactor.sync { () throws -> [Duration] in
            let io = try NodeIO(
                nodeID: "t", epoch: 1, limits: NodeLimits(), context: context, reactor: reactor, pubEndpoint: "tcp://127.0.0.1:*",
                log: log)
            defer { io.close() }
            return [try io.publisher.socket.option(.heartbeatInterval), try io.subscriber.shared.option(.heartbeatInterval)]
        }
        #expect(intervals == [.zero, .zero], "publisher and subscriber intervals: \(intervals)")
    }
}
