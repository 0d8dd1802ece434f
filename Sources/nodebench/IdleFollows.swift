import Foundation
import RexControl
import RexFeeds
import RexNode
import SwiftRex

/// A node's CPU while nothing happens but the membership: three members probing each other
/// (SWIM, a 100 ms protocol period), node `f` holding F follows on its shared socket (topics
/// nobody publishes).
///
/// Every membership report `f` takes is a batch through its reducer (the probes themselves run
/// beside the store); before the supervise was memoised each batch re-derived and diffed all F
/// follow channels. Measured:
/// the CPU time of `f`'s reactor thread (where its store runs) over a window, as a share of one
/// core, and its reconcile counters over the same window.
enum IdleFollows {
    /// `nodebench idle <follows> <seconds>`: prints one `IDLE …` line.
    static func run(follows: Int, seconds: Double) async throws {
        let settings = NodeSettings()
        // Each node knows the ones started before it; the membership tells the earlier ones.
        func start(_ id: String, peers: [String: Node]) throws -> Node {
            var configuration = NodeConfiguration(
                id: id, pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
                settings: settings, logLevel: .warning)
            for (peer, node) in peers { configuration.addPeer(peer, pub: node.pubEndpoint, membership: node.membershipEndpoint) }
            return try Node.start(configuration)
        }
        let p = try start("p", peers: [:])
        let q = try start("q", peers: ["p": p])
        let f = try start("f", peers: ["p": p, "q": q])

        let loadStart = nowNanoseconds()
        for index in 0..<follows { f.dispatch(.follow(name: "f\(index)", topic: "idle.\(index)", from: nil)) }
        // Publisher, membership, two peers and every follow live (past its settle).
        let expected = 4 + follows
        var live = 0
        let deadline = nowNanoseconds() + 100_000_000_000
        while nowNanoseconds() < deadline {
            live = await f.store.keep().counters.liveChannels
            if live == expected { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard live == expected else { fail("f holds \(live) of \(expected) channels after 100 s") }
        let loadSeconds = Double(nowNanoseconds() - loadStart) / 1e9
        try await Task.sleep(for: .seconds(1))

        let thread = "rexnode-f"
        let before = await f.store.keep().counters
        let cpu0 = threadCPUSeconds()[thread] ?? 0
        let t0 = nowNanoseconds()
        try await Task.sleep(for: .seconds(seconds))
        let cpu1 = threadCPUSeconds()[thread] ?? 0
        let elapsed = Double(nowNanoseconds() - t0) / 1e9
        let after = await f.store.keep().counters
        let cycles = after.cycles - before.cycles
        let skipped = after.skippedCycles - before.skippedCycles
        let reconcile = (after.totalBuildDuration + after.totalDiffDuration) - (before.totalBuildDuration + before.totalDiffDuration)
        let reconcileSeconds = Double(reconcile.components.seconds) + Double(reconcile.components.attoseconds) / 1e18
        emit(
            String(
                format: "IDLE follows=%d secs=%.2f cpu_pct=%.2f cycles=%d skipped=%d reconcile_us_per_cycle=%.1f load_secs=%.2f live=%d",
                follows, elapsed, 100 * (cpu1 - cpu0) / elapsed, cycles, skipped,
                cycles > 0 ? 1e6 * reconcileSeconds / Double(cycles) : 0.0, loadSeconds, live))
        await f.stop()
        await q.stop()
        await p.stop()
    }
}
