import Foundation
import NodeTestSupport
import RexControl
import SharedTestSupport
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// A pod's end: the kubelet sends SIGTERM and, after the grace period (30 s by default; the
/// manifests keep it), SIGKILL. The node must tell its members it left, and exit well within it.
@Suite struct TerminationTests {
    /// The `rexnode` process, a member of an in-process node's cluster, gets SIGTERM: the peer
    /// sees it `left` (announced; a node that vanished would be suspect, then `dead`), and the
    /// process exits 0 within 5 s of the signal.
    @Test func sigtermAnnouncesLeftAndExitsWithinTheBound() async throws {
        let ports = try (0..<3).map { _ in try NodeCommandTests().freeLoopbackPort() }
        let (pub, control, membership) = ("tcp://127.0.0.1:\(ports[0])", "tcp://127.0.0.1:\(ports[1])", "tcp://127.0.0.1:\(ports[2])")
        var configuration = NodeConfiguration(
            id: "k1", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
            logLevel: .warning)
        configuration.addPeer("p1", pub: pub, membership: membership)
        let peer = try Node.start(configuration)

        let process = Process()
        process.executableURL = NodeCommandTests.executable
        process.arguments = [
            "--id", "p1", "--pub", pub, "--control", control, "--membership", membership,
            "--peer", "k1=\(peer.pubEndpoint),\(peer.membershipEndpoint)", "--log-level", "warning",
        ]
        let exited = Arrivals()
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let ping = try await controlRequest(control, #"{"v": 1, "op": "ping"}"#, timeout: Arrivals.safetyTimeout)
        #expect(ping?["ok"] as? Bool == true, "p1 is up")

        let signalled = ContinuousClock.now
        process.terminate()  // SIGTERM
        try #require(await exited.wait(), "p1 exits after SIGTERM")
        let took = ContinuousClock.now - signalled
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(took < .seconds(5), "exited \(took) after SIGTERM")
        #expect(
            await waitFor(peer) { $0.peers["p1"]?.membership == .left }, "k1 heard p1 leave: \(String(describing: peer.state.peers["p1"]))")
        await peer.stop()
    }
}
