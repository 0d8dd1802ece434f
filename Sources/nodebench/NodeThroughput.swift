import Foundation
import RexControl
import RexFeeds
import RexNode
import ZMQ

/// Node end-to-end throughput: node `a` publishes N 16-byte messages (one `.publish` action each,
/// dispatched from this thread), node `b` follows the topic on its shared SUB (peer `a`) and
/// reduces each message into `state.follows["f"]`. Timed from the first dispatch until
/// `b.state.follows["f"].count == N`. Both nodes live in this process (each with its own ZeroMQ
/// context, reactor thread and libzmq I/O thread), talking over tcp loopback.
enum NodeThroughput {
    static let topic = "bench.t"
    static let payload = "0123456789abcdef"  // 16 B

    /// `nodebench thr <count> [window]`: prints one `NODETHR …` line.
    static func run(count: Int, window: Int, curve: Bool = false) async throws {
        // Queues sized for the burst this run allows (up to `window` messages in flight): the
        // default (`NodeLimits.queueMessages`, 10,000) would drop part of a 50,000 burst, as
        // libzmq drops for a subscriber whose queue is full. Twice the window: a pipe's reader
        // hands credit back to its writer only every half queue, so a queue can look full at
        // half its size (drops seen with a queue of exactly the window).
        let settings = NodeSettings(limits: NodeLimits(queueMessages: max(2 * window, 10_000)))
        var aConfiguration = NodeConfiguration(
            id: "a", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
            settings: settings,
            logLevel: .warning)
        // CURVE mode: both nodes secured, each the other's member (a's endpoint is known once it
        // is bound, and only b connects).
        let keys = curve ? try SecuredPair() : nil
        aConfiguration.security = keys?.security(for: "a", aPub: nil)
        let a = try Node.start(aConfiguration)
        var bConfiguration = NodeConfiguration(
            id: "b", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
            settings: settings, logLevel: .warning)
        bConfiguration.addPeer("a", pub: a.pubEndpoint, membership: a.membershipEndpoint)
        bConfiguration.security = keys?.security(for: "b", aPub: a.pubEndpoint)
        let b = try Node.start(bConfiguration)
        b.dispatch(.follow(name: "f", topic: topic, from: nil))
        // Handshake: the follow's subscription has reached a's publisher.
        guard waitUntil(timeout: 10, pause: 1000, { a.publisherSubscriptions().contains(topic) }) else {
            fail("the follower's subscription never reached the publisher")
        }
        func received() -> Int { b.state.follows["f"]?.count ?? 0 }

        let cyclesBefore = await b.store.keep().counters
        let cpuBefore = threadCPUSeconds()
        let t0 = nowNanoseconds()
        var dispatched = 0
        var done = 0
        while dispatched < count {
            let burst = min(1000, count - dispatched)
            for _ in 0..<burst { a.dispatch(.publish(topic: topic, payload: payload)) }
            dispatched += burst
            done = received()
            while dispatched - done > window {
                usleep(200)  // leave the CPU to the nodes (2 cores, 5 busy threads)
                done = received()
            }
        }
        let tDispatched = nowNanoseconds()
        let complete = waitUntil(timeout: 30, pause: 200) { received() >= count }
        let t1 = nowNanoseconds()
        let cpuAfter = threadCPUSeconds()
        /// CPU microseconds per message spent by the threads whose name starts with `prefix`.
        func cpuPerMessage(_ prefix: String) -> Double {
            let spent = cpuAfter.filter { $0.key.hasPrefix(prefix) }.reduce(0.0) { $0 + $1.value - (cpuBefore[$1.key] ?? 0) }
            return spent / Double(max(count, 1)) * 1e6
        }
        let cyclesAfter = await b.store.keep().counters
        let cyclesB = cyclesAfter.cycles - cyclesBefore.cycles
        let reconcileB =
            (cyclesAfter.totalBuildDuration + cyclesAfter.totalDiffDuration)
            - (cyclesBefore.totalBuildDuration + cyclesBefore.totalDiffDuration)
        let follow = b.state.follows["f"]
        let published = a.messageCounts()
        let got = follow?.count ?? 0
        let seconds = Double(t1 - t0) / 1e9
        emit(
            String(
                format: "NODETHR%@ count=%d recv=%d complete=%d secs=%.4f msg_s=%.0f dispatch_s=%.0f published=%d gaps=%d "
                    + "window=%d mailbox_max_a=%d mailbox_max_b=%d cpu_us_a=%.2f cpu_us_b=%.2f cpu_us_zmq=%.2f "
                    + "cycles_b=%d reconcile_ms_b=%.1f",
                curve ? "-curve" : "", count, got, complete ? 1 : 0, seconds, Double(got) / seconds,
                Double(dispatched) / (Double(tDispatched - t0) / 1e9),
                published.published, follow?.gaps ?? -1, window, a.store.mailboxDepth.max, b.store.mailboxDepth.max,
                cpuPerMessage("rexnode-a"), cpuPerMessage("rexnode-b"), cpuPerMessage("ZMQbg/IO"),
                cyclesB, Double(reconcileB.components.seconds) * 1e3 + Double(reconcileB.components.attoseconds) / 1e15))
        await b.stop()
        await a.stop()
    }
}

/// The keys of a secured node pair for the CURVE runs (made fresh per run).
/// The first node publishes, the second connects to it.
struct SecuredPair {
    let names: (String, String)
    let a: ZMQCurveKeyPair
    let b: ZMQCurveKeyPair

    init(names: (String, String) = ("a", "b")) throws {
        self.names = names
        a = try ZMQCurveKeyPair.generate()
        b = try ZMQCurveKeyPair.generate()
    }

    /// `aPub`: the first node's resolved publisher endpoint (for the second node).
    func security(for id: String, aPub: String?) -> NodeSecurity {
        let mine = id == names.0 ? a : b
        return NodeSecurity(
            keys: KeyFile(publicKey: mine.publicKey.z85, secretKey: mine.secretKey.z85),
            members: [.init(id: names.0, key: a.publicKey.z85, pub: aPub), .init(id: names.1, key: b.publicKey.z85, pub: nil)],
            operators: OperatorsFile(operators: []))
    }
}
