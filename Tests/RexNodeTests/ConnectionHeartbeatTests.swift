import RexControl
import Testing
import ZMQ

@testable import RexNode

/// ZMTP heartbeats on the data plane: on every connection of a node under the heartbeat
/// membership, on none under SWIM (its membership drops a dead member's connections; the
/// heartbeats' cost grows with the number of connections, 2 (N − 1) per node).
@Suite struct ConnectionHeartbeatTests {
    /// The heartbeat options of a fresh node's publisher and shared subscriber.
    private func heartbeatOptions(connectionHeartbeats: Bool) throws -> [Duration] {
        let context = try ZMQContext()
        let reactor = Reactor(name: "connection-heartbeat-test")
        defer {
            reactor.stop()
            try? context.terminate(timeout: .seconds(1))
        }
        let log = NodeLogger(nodeID: "t", level: .error, sink: { _ in })
        return try reactor.sync { () throws -> [Duration] in
            let io = try NodeIO(
                nodeID: "t", epoch: 1, limits: NodeLimits(), context: context, reactor: reactor, pubEndpoint: "tcp://127.0.0.1:*",
                log: log, connectionHeartbeats: connectionHeartbeats)
            defer { io.close() }
            return [
                try io.publisher.socket.option(.heartbeatInterval), try io.publisher.socket.option(.heartbeatTimeout),
                try io.subscriber.shared.option(.heartbeatInterval), try io.subscriber.shared.option(.heartbeatTimeout),
            ]
        }
    }

    @Test func heartbeatMembershipKeepsThemOnBothSides() throws {
        #expect(
            try heartbeatOptions(connectionHeartbeats: true)
                == [ConnectionHeartbeat.interval, ConnectionHeartbeat.timeout, ConnectionHeartbeat.interval, ConnectionHeartbeat.timeout])
    }

    /// An interval of zero is libzmq's "send no PING" (its default; the timeout then never runs).
    @Test func swimMembershipLeavesThemOff() throws {
        let options = try heartbeatOptions(connectionHeartbeats: false)
        #expect(options[0] == .zero && options[2] == .zero, "publisher and subscriber intervals: \(options)")
    }
}
