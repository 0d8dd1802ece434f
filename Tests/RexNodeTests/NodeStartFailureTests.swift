import RexControl
import Testing
import ZMQ

@testable import RexNode

/// A node that cannot bind one of its endpoints fails to start with `socketFailure`, and closes
/// everything it had opened before: a socket left open would hold the context's termination for
/// its whole timeout (1 s) and then leave the context, its I/O thread and the socket behind.
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
        var configuration = NodeConfiguration(
            id: "s1", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*",
            membershipEndpoint: "tcp://127.0.0.1:*", logLevel: .error)
        switch taken {
        case "control": configuration.controlEndpoint = endpoint
        case "metrics": configuration.metricsEndpoint = endpoint
        default: configuration.membershipEndpoint = endpoint
        }
        let clock = ContinuousClock()
        let started = clock.now
        #expect {
            _ = try Node.start(configuration)
        } throws: { error in
            (error as? NodeError)?.code == .socketFailure
        }
        let elapsed = clock.now - started
        #expect(elapsed < .milliseconds(900), "the failed start took \(elapsed): something it opened was left open")
    }
}
