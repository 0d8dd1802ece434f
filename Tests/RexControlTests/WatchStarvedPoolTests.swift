import Dispatch
import Foundation
import NodeTestSupport
import RexCluster
import RexControl
import RexFeeds
import RexNode
import Synchronization
import Testing
import ZMQ

/// A node's watch keeps its pace while Swift's cooperative pool is held by blocking work in the
/// same process (as blocking socket tests running in parallel do): its ticks and its rounds run
/// on Dispatch queues of their own, never on the pool.
@Suite struct WatchStarvedPoolTests {
    struct Outcome: Sendable {
        var poolBlocked = false
        var probeRanMeanwhile = false
        var firstPush = false
        var changePush = false
    }

    /// The pool is held only for the moments the test needs: until both pushes came (about
    /// 0.1 s when it passes), `safetyTimeout` at most. The other suites run on it too, in parallel.
    static let safetyTimeout = Duration.seconds(30)

    @Test func pushesKeepComingWhileThePoolIsBlocked() async throws {
        let node = try startQuietNode("starved")
        let outcome = try await offPool { () throws -> Outcome in
            var outcome = Outcome()
            let client = try BlockingControlClient(node.controlEndpoint)
            defer { client.close() }
            // Every thread of the pool blocked (one per core). Other suites' tests may hold a
            // thread for a while: blockers that do not all run within 200 ms are let go at once
            // and tried again (at most 40 times), so a partial block never lasts long.
            var blockers: PoolBlockers?
            for _ in 0..<40 {
                let attempt = PoolBlockers(count: ProcessInfo.processInfo.activeProcessorCount, atMost: Self.safetyTimeout)
                if attempt.waitUntilAllBlock(within: .milliseconds(200)) {
                    blockers = attempt
                    break
                }
                attempt.release()
            }
            defer { blockers?.release() }
            outcome.poolBlocked = blockers != nil
            guard outcome.poolBlocked else { return outcome }
            // A task started now runs only once a pool thread is free: the witness that none was.
            let witness = ProbeFlag()
            Task.detached { witness.set() }

            // Both pushes must come before the blockers give up (the witness checks they did not).
            let deadline = ContinuousClock.now + Self.safetyTimeout
            try client.send(#"{"v": 1, "id": "p", "op": "watch", "documents": ["keep", "state"]}"#)
            outcome.firstPush = try client.receive(timeout: ContinuousClock.now.duration(to: deadline)) != nil
            node.dispatch(.set(topic: "starved", value: "1"))
            while !outcome.changePush, let text = try client.receive(timeout: ContinuousClock.now.duration(to: deadline)) {
                let push = try ReceivedReply(Array(text.utf8)).result(WatchDocument<NodeState>.self).get()
                outcome.changePush = push.state?.feeds["starved"]?.value == "1"
            }
            outcome.probeRanMeanwhile = witness.isSet
            return outcome
        }
        #expect(outcome.poolBlocked, "the pool's threads were never all taken at once within 40 tries")
        #expect(!outcome.probeRanMeanwhile, "a pool thread was free after all: the test would prove nothing")
        #expect(outcome.firstPush, "the first push came while the pool was blocked")
        #expect(outcome.changePush, "the push with the change came while the pool was blocked")
        await node.stop()
    }
}

/// Tasks that block one cooperative-pool thread each until released (or `atMost` passed).
private final class PoolBlockers: Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let started = DispatchSemaphore(value: 0)
    private let count: Int

    init(count: Int, atMost limit: Duration) {
        self.count = count
        let seconds = Double(limit.components.seconds)
        for _ in 0..<count {
            Task.detached { [self] in
                started.signal()
                // Blocking on purpose: that is the test. A blocker that starts after the release
                // finds its signal waiting and returns at once.
                _ = gate.wait(timeout: .now() + seconds)
            }
        }
    }

    /// Whether every blocker runs (and so holds its thread) within `timeout`.
    func waitUntilAllBlock(within timeout: Duration) -> Bool {
        let deadline = DispatchTime.now() + .milliseconds(Int(timeout / .milliseconds(1)))
        return (0..<count).allSatisfy { _ in started.wait(timeout: deadline) == .success }
    }

    func release() {
        for _ in 0..<count { gate.signal() }
    }
}

private final class ProbeFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .sequentiallyConsistent) }
    var isSet: Bool { flag.load(ordering: .sequentiallyConsistent) }
}

/// A DEALER on the control endpoint used synchronously, from one thread (no pool involved).
private final class BlockingControlClient {
    private let context: ZMQContext
    private let socket: ZMQSocket

    init(_ endpoint: String) throws {
        context = try ZMQContext()
        socket = try context.socket(.dealer)
        try socket.setOption(.linger, .zero)
        try socket.connect(endpoint)
    }

    func send(_ text: String) throws { _ = try socket.send(text) }

    /// The next message's last frame as text, or nil within `timeout`.
    func receive(timeout: Duration) throws -> String? {
        let poller = ZMQPoller(capacity: 1)
        try poller.register(socket)
        let deadline = ContinuousClock.now + timeout
        while true {
            if let frames = try socket.tryReceiveMultipart() { return String(decoding: frames.last ?? [], as: UTF8.self) }
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return nil }
            try poller.poll(timeout: remaining)
        }
    }

    func close() {
        socket.close()
        try? context.terminate()
    }
}
