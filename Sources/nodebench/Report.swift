import BenchSupport
import Foundation
import RexControl
import RexFeeds

/// Runs every node measurement in a fresh child process (`nodebench thr …` / `nodebench churn …`)
/// next to the C baseline (`thr`, `churn recreate`, the repository's `retarget`), alternating which goes first in each
/// repetition so both see the same machine at the same time, and prints the tables.
struct Report {
    var quick = false
    var repetitions = 5
    var runC = true
    var sync = FollowChurn.Sync.publisher
    var baseline = Baseline()

    /// One result line of a child run, as its `key=value` fields.
    typealias Fields = [String: String]

    func run() {
        let reps = quick ? 1 : repetitions
        let rawCount = quick ? 200_000 : 1_000_000
        let nodeCount = quick ? 100_000 : 1_000_000
        let churnSeconds = quick ? 1.5 : 3.0
        let cycles = quick ? 2_000 : 5_000
        let cAvailable = runC && baseline.build()
        let retargetAvailable = runC && baseline.buildRetarget()
        let started = nowNanoseconds()

        var nodeThr: [Fields] = [], cThr = Sample()
        var shared: [Fields] = [], cRetarget = Sample(), cManual = Sample(), cBatch = Sample()
        var dedicated: [Fields] = [], cRecreate = Sample()
        for rep in 1...reps {
            let cFirst = rep % 2 == 0
            if cFirst, cAvailable, let v = baseline.throughput(count: rawCount) { cThr.values.append(v) }
            if let r = child(["thr", "\(nodeCount)"], rep: rep) { nodeThr.append(r) }
            if !cFirst, cAvailable, let v = baseline.throughput(count: rawCount) { cThr.values.append(v) }

            // The raw re-target of 100 subscriptions in the node's protocol, around the node's run;
            // and in two protocols the node does not speak (what they would gain): two frames per
            // change (XPUB_MANUAL), and one command frame per round.
            if cFirst, retargetAvailable, let v = baseline.retarget("snap4", follows: 100, seconds: churnSeconds) {
                cRetarget.values.append(v)
            }
            if let r = child(["churn", "shared", "\(churnSeconds)", sync.rawValue], rep: rep) { shared.append(r) }
            if !cFirst, retargetAvailable, let v = baseline.retarget("snap4", follows: 100, seconds: churnSeconds) {
                cRetarget.values.append(v)
            }
            if retargetAvailable, let v = baseline.retarget("manual2", follows: 100, seconds: churnSeconds) { cManual.values.append(v) }
            if retargetAvailable, let v = baseline.retarget("batch", follows: 100, seconds: churnSeconds) { cBatch.values.append(v) }

            if cFirst, cAvailable, let v = baseline.recreate(cycles: cycles) { cRecreate.values.append(v) }
            if let r = child(["churn", "from", "\(churnSeconds)", sync.rawValue], rep: rep) { dedicated.append(r) }
            if !cFirst, cAvailable, let v = baseline.recreate(cycles: cycles) { cRecreate.values.append(v) }
        }
        // Idle CPU against the number of follows (one repetition each: the window is long).
        let idleFollows = quick ? [1_000, 10_000] : [1_000, 10_000, 20_000, 100_000]
        var idle: [(Int, Fields)] = []
        for follows in idleFollows {
            if let r = child(["idle", "\(follows)", quick ? "3" : "10"], rep: 1) { idle.append((follows, r)) }
        }
        let wall = Double(nowNanoseconds() - started) / 1e9

        let thr = sample(nodeThr, "msg_s"), sharedRate = sample(shared, "changes_s"), fromRate = sample(dedicated, "changes_s")
        print("")
        print("## nodebench: RexNode end to end vs raw libzmq (same machine, same run)")
        print(
            "nproc=\(ProcessInfo.processInfo.activeProcessorCount), \(reps) repetition(s), median [min–max], wall \(String(format: "%.0f", wall)) s; "
                + "follow settle = 0 ms (NodeSettings.followSettleMs) for the churn runs; churn sync = \(sync.rawValue); "
                + "e2e nodes queue 100,000 messages per peer (NodeLimits.queueMessages) for the 50,000-message window")
        print("")
        var table = Table(["benchmark", "node", "raw libzmq (C)", "node/raw", "target", "met"])
        let thrRatio = ratio(thr, cThr)
        table.add([
            "1. e2e throughput, 16 B tcp, msg/s (\(grouped(Double(nodeCount))) msgs; C thr \(grouped(Double(rawCount))))",
            thr.formatted(), cThr.formatted(), percent(thrRatio), "≥ 50 % of raw", verdict(thrRatio.map { $0 >= 0.5 }),
        ])
        table.add([
            "2a. follow changes/s, 100 shared-socket follows (C: retarget snap4, the same four frames per change)",
            sharedRate.formatted(), cRetarget.formatted(), percent(ratio(sharedRate, cRetarget)), "≥ 200,000/s (issue 15)",
            verdict(sharedRate.median.map { $0 >= 200_000 }),
        ])
        table.add([
            "2a′. raw only: the same churn in a two-frame protocol (C: retarget manual2, ZMQ_XPUB_MANUAL; the node does not speak it)",
            "–", cManual.formatted(), "–", "–", "–",
        ])
        table.add([
            "2a″. raw only: a round's re-targets in one command frame (C: retarget batch, ZMQ_XPUB_MANUAL; the node does not speak it)",
            "–", cBatch.formatted(), "–", "–", "–",
        ])
        let fromRatio = ratio(fromRate, cRecreate)
        table.add([
            "2b. follow changes/s, 100 `from` follows (C: churn recreate)", fromRate.formatted(), cRecreate.formatted(),
            percent(fromRatio), "≥ 50 % of raw", verdict(fromRatio.map { $0 >= 0.5 }),
        ])
        print(table.render())
        let cpuA = sample(nodeThr, "cpu_us_a"), cpuB = sample(nodeThr, "cpu_us_b"), cpuZMQ = sample(nodeThr, "cpu_us_zmq")
        if let a = cpuA.median, let b = cpuB.median, let z = cpuZMQ.median {
            // Where a message's CPU goes: with 2 cores shared by every thread, throughput is bounded by their sum.
            print(
                String(
                    format: "CPU per message (median, µs): publishing node %.2f, following node %.2f, libzmq I/O threads %.2f; sum %.2f",
                    a, b, z, a + b + z))
        }

        print("")
        print("### 3. idle CPU against follows — 3 SWIM members (100 ms protocol period), node f holds F shared-socket follows")
        var idleTable = Table([
            "follows", "f's reactor CPU, % of a core", "cycles/s", "skipped (no input changed)", "µs per cycle", "target", "met",
        ])
        for (follows, r) in idle {
            let seconds = max(d(r, "secs"), 1e-9)
            let cpu = d(r, "cpu_pct")
            let target = follows == 20_000 ? "≤ 3 %" : follows == 100_000 ? "≤ 5 %" : "–"
            let met: Bool? = follows == 20_000 ? cpu <= 3 : follows == 100_000 ? cpu <= 5 : nil
            idleTable.add([
                grouped(Double(follows)), String(format: "%.2f %%", cpu), String(format: "%.0f", d(r, "cycles") / seconds),
                "\(r["skipped"] ?? "?") of \(r["cycles"] ?? "?")", r["reconcile_us_per_cycle"] ?? "?", target, verdict(met),
            ])
        }
        print(idleTable.render())
        print("CPU from /proc (10 ms ticks); µs per cycle = supervise update + reconcile per batch (membership reports).")

        print("")
        print("### details per run")
        var details = Table(["run", "result", "checks"])
        for (index, r) in nodeThr.enumerated() {
            details.add([
                "thr #\(index + 1)",
                "\(grouped(d(r, "msg_s"))) msg/s; dispatch \(grouped(d(r, "dispatch_s")))/s; \(r["recv"] ?? "?")/\(r["count"] ?? "?") reduced",
                "gaps \(r["gaps"] ?? "?"), mailbox max a/b \(r["mailbox_max_a"] ?? "?")/\(r["mailbox_max_b"] ?? "?"); "
                    + "CPU µs/msg a \(r["cpu_us_a"] ?? "?"), b \(r["cpu_us_b"] ?? "?"), libzmq I/O \(r["cpu_us_zmq"] ?? "?")",
            ])
        }
        for (label, runs) in [("2a shared", shared), ("2b from", dedicated)] {
            for (index, r) in runs.enumerated() {
                details.add([
                    "\(label) #\(index + 1)",
                    "\(grouped(d(r, "changes_s")))/s (node-side \(grouped(d(r, "node_changes_s")))/s); \(r["changes"] ?? "?") changes, "
                        + "\(r["recreates"] ?? "?") recreates; reconcile \(r["reconcile_cycles"] ?? "?") cycles, \(r["reconcile_total_ms"] ?? "?") ms",
                    "leak-free \(r["leak_free"] == "1" ? "yes" : "NO"): opens−cancels \(r["opens_minus_cancels"] ?? "?") = live \(r["live"] ?? "?"); "
                        + "after unfollow \(r["opens_minus_cancels_after_unfollow"] ?? "?") = \(r["live_after_unfollow"] ?? "?") (before \(r["live_before"] ?? "?")); "
                        + "sockets \(r["sockets"] ?? "?"), fds \(r["fds"] ?? "?") (before follows/after follow/after churn/after unfollow)",
                ])
            }
        }
        print(details.render())
    }

    private func child(_ arguments: [String], rep: Int) -> Fields? {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let process = ChildProcess(executable: exe, arguments: arguments)
        process.start()
        let (output, status) = process.collectOutput(timeout: .seconds(120))
        let label = "node  \(arguments.joined(separator: " ")) (run \(rep))"
        guard status == 0, let line = output.split(separator: "\n").last else {
            note("  \(label): FAILED (status \(status.map(String.init) ?? "killed")) \(output)")
            return nil
        }
        var fields: Fields = [:]
        for part in line.split(separator: " ") {
            guard let eq = part.firstIndex(of: "=") else { continue }
            fields[String(part[..<eq])] = String(part[part.index(after: eq)...])
        }
        note("  \(label): \(line)")
        return fields
    }

    private func d(_ fields: Fields, _ key: String) -> Double { Double(fields[key] ?? "") ?? 0 }
    private func sample(_ runs: [Fields], _ key: String) -> Sample { Sample(values: runs.compactMap { Double($0[key] ?? "") }) }
    private func ratio(_ a: Sample, _ b: Sample) -> Double? {
        guard let x = a.median, let y = b.median, y > 0 else { return nil }
        return x / y
    }
    private func percent(_ value: Double?) -> String { value.map { String(format: "%.1f %%", 100 * $0) } ?? "–" }
    private func verdict(_ met: Bool?) -> String { met.map { $0 ? "yes" : "NO" } ?? "–" }
}
