import RexControl
import Synchronization
import Testing
import ZMQ

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// A node that cannot bind one of its endpoints fails to start with `socketFailure`, and closes
/// everything it had opened before, newest first. Its I/O is registered with its reactor (a
/// reader holding the publisher socket, a turn-end hook): left open, it would outlive the failed
/// start, keep the context from terminating (logged as `context_terminate_failed`) and its port
/// bound; and the hook would run after the I/O is gone.
@Suite struct NodeStartFailureTests {
    /// Binds a free loopback port for the test's lifetime and returns its endpoint.
    private func occupiedEndpoint(_ context: ZMQContext) throws -> (ZMQSocket, String) {
        let socket = try context.socket(.router)
        try socket.bind("tcp://127.0.0.1:*")
        return (socket, try #require(try socket.lastEndpoint))
    }

    @Test(arguments: ["control", "metrics", "membership"])
    func anEndpointInUseFailsTheStartAndLeavesNothingOpen(taken: String) throws {
        let context = try ZMQContext()
        let (holder, endpoint) = try occupiedEndpoint(context)
        defer {
            holder.close()
            try? context.terminate(timeout: .seconds(1))
        }
        let pub = "tcp://127.0.0.1:\(try NodeCommandTests().freeLoopbackPort())"
        var configuration = NodeConfiguration(
            id: "s1", pubEndpoint: pub, controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
            logLevel: .error)
        switch taken {
        case "control": configuration.controlEndpoint = endpoint
        case "metrics": configuration.metricsEndpoint = endpoint
        default: configuration.membershipEndpoint = endpoint
        }
        let lines = Mutex<[String]>([])
        let logger = NodeLogger(nodeID: "s1", level: .info, sink: { line in lines.withLock { $0.append(line) } })
        #expect {
            _ = try Node.start(configuration, logger: logger)
        } throws: { error in
            (error as? NodeError)?.code == .socketFailure
        }
        // Every socket was closed before the context was terminated: nothing was left to log.
        let logged = lines.withLock { $0 }
        #expect(!logged.contains { $0.contains("context_terminate_failed") }, "\(logged)")
        // The publisher's port, bound before the failing step, is free again at once.
        let rebound = try context.socket(.xpub)
        defer { rebound.close() }
        #expect(throws: Never.self) { try rebound.bind(pub) }
    }
}
