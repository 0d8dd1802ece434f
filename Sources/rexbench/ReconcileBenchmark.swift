import SwiftRex

/// Reconcile time per cycle with K live channels and a given churn.
///
/// One store per K (on a `ThreadExecutor`) opens K channels at init. Each cycle is one action
/// dispatched from the benchmark, then `waitUntilIdle()`, so every action is its own batch and
/// runs exactly one supervise + reconcile. Per-cycle build (supervise) and diff (reconcile) times
/// come from the engine's own counters: deltas of `totalBuildDuration` / `totalDiffDuration` over
/// the cycles of a run, divided by the cycles counted.
enum ReconcileBenchmark {
    enum Churn: Hashable {
        case none
        case rekey(percent: Int)
        case replace(percent: Int)

        var label: String {
            switch self {
            case .none: "0 % (unchanged set)"
            case .rekey(let p): "\(p) % rekey"
            case .replace(let p): "\(p) % replace"
            }
        }

        func action(k: Int) -> Fleet.Action {
            switch self {
            case .none: .touch
            case .rekey(let p): .rekey(count: max(1, k * p / 100))
            case .replace(let p): .replace(count: max(1, k * p / 100))
            }
        }

        /// Channel opens + cancels one cycle must cause.
        func expectedChanges(k: Int) -> Int {
            switch self {
            case .none: 0
            case .rekey(let p), .replace(let p): 2 * max(1, k * p / 100)
            }
        }
    }

    /// How the workload's supervise is written (the same channels and actions either way).
    enum Workload: String, CaseIterable {
        /// `Fleet`: one opaque supervise building all K channels every cycle.
        case opaque
        /// `MemoFleet`: per-member memo, lifted over the members with the reducer's change log.
        case memoised
    }

    struct Result {
        let k: Int
        let workload: Workload
        let churn: Churn
        let build: Sample
        let diff: Sample
        let total: Sample
        let wall: Sample
    }

    struct OpenResult {
        let k: Int
        let workload: Workload
        let build: Duration
        let diff: Duration
        /// One `Store.keep()` (the whole keep set, built on the store's executor): what a node's
        /// `keep` request costs its reactor before the reply is encoded elsewhere.
        let keepSnapshot: Duration
    }

    static let churns: [Churn] = [.none, .rekey(percent: 1), .rekey(percent: 10), .replace(percent: 1), .replace(percent: 10)]

    static func runAll(ks: [Int], runs: Int, channelCycleBudget: Int) async -> [Result] {
        var results: [Result] = []
        var opens: [OpenResult] = []
        for k in ks {
            let cycles = max(3, min(200, channelCycleBudget / k))
            for workload in Workload.allCases {
                let (open, perK) =
                    switch workload {
                    case .opaque:
                        await run(
                            k: k, runs: runs, cycles: cycles, workload: workload, initial: Fleet.State(count: k), behavior: Fleet.behavior)
                    case .memoised:
                        await run(
                            k: k, runs: runs, cycles: cycles, workload: workload, initial: MemoFleet.State(count: k),
                            behavior: MemoFleet.behavior)
                    }
                opens.append(open)
                results += perK
            }
        }
        render(
            results.filter { $0.workload == .opaque }, opens: opens.filter { $0.workload == .opaque }, runs: runs,
            budget: channelCycleBudget)
        renderMemoised(results, opens: opens, runs: runs)
        return results
    }

    static func run<State: Sendable>(
        k: Int, runs: Int, cycles: Int, workload: Workload, initial: State, behavior: Behavior<Fleet.Action, State, Void>
    ) async -> (OpenResult, [Result]) {
        let executor = ThreadExecutor(name: "rexbench.reconcile")
        defer { executor.stop() }
        let store = Store(initial: initial, behavior: behavior, executor: .custom(executor))
        await store.waitUntilIdle()
        var counters = await store.keep().counters
        precondition(counters.liveChannels == k, "opened \(counters.liveChannels) of \(k) channels")
        let keepClock = ContinuousClock()
        let keepStart = keepClock.now
        let snapshot = await store.keep()
        let keepSnapshot = keepClock.now - keepStart
        precondition(snapshot.channels.count == k)
        let open = OpenResult(
            k: k, workload: workload, build: counters.totalBuildDuration, diff: counters.totalDiffDuration, keepSnapshot: keepSnapshot)

        var results: [Result] = []
        for churn in churns {
            // Warm-up cycle (not timed): the first cycle after a churn change differs.
            store.dispatch(churn.action(k: k))
            await store.waitUntilIdle()
            counters = await store.keep().counters
            var build: [Double] = [], diff: [Double] = [], total: [Double] = [], wall: [Double] = []
            for _ in 0..<runs {
                let before = counters
                let clock = ContinuousClock()
                let start = clock.now
                for _ in 0..<cycles {
                    store.dispatch(churn.action(k: k))
                    await store.waitUntilIdle()
                }
                let elapsed = clock.now - start
                counters = await store.keep().counters
                let n = counters.cycles - before.cycles
                precondition(n == cycles, "expected \(cycles) reconcile cycles, counted \(n)")
                let changes = (counters.opens - before.opens) + (counters.cancels - before.cancels)
                precondition(
                    changes == cycles * churn.expectedChanges(k: k),
                    "\(churn.label) at K=\(k): \(changes) opens+cancels in \(cycles) cycles"
                )
                precondition(counters.liveChannels == k)
                let b = (counters.totalBuildDuration - before.totalBuildDuration).seconds / Double(n)
                let d = (counters.totalDiffDuration - before.totalDiffDuration).seconds / Double(n)
                build.append(b)
                diff.append(d)
                total.append(b + d)
                wall.append(elapsed.seconds / Double(n))
            }
            results.append(
                Result(
                    k: k, workload: workload, churn: churn, build: Sample(build), diff: Sample(diff), total: Sample(total),
                    wall: Sample(wall)
                ))
        }
        await store.release()
        return (open, results)
    }

    static func render(_ results: [Result], opens: [OpenResult], runs: Int, budget: Int) {
        var table = Table(
            "2. Reconcile per cycle — K live ephemeral channels, opaque supervise, \(runs) runs (median, min – max)",
            header: ["K", "churn", "build (supervise)", "diff + apply", "total", "per channel", "wall / cycle"]
        )
        table.leftAligned = [1]
        var lastK = 0
        for r in results {
            table.add([
                r.k == lastK ? "" : Format.count(r.k), r.churn.label,
                Format.spread(r.build, Format.time), Format.spread(r.diff, Format.time),
                Format.spread(r.total, Format.time), Format.time(r.total.median / Double(r.k)),
                Format.time(r.wall.median),
            ])
            lastK = r.k
        }
        table.notes = [
            "rekey: that fraction of channels changes its ephemeral reset key (cancel + reopen each).",
            "replace: that fraction of ids leaves the set and as many new ids enter (cancel + open).",
            "build/diff: deltas of ReconcileCounters.totalBuildDuration/totalDiffDuration ÷ cycles;",
            "  each run is max(3, min(200, \(Format.count(budget)) / K)) cycles, one action per batch; opens+cancels checked.",
            "wall / cycle: dispatch → waitUntilIdle() seen from outside (adds reduce, publish, executor hops).",
            "Reference: original library ~2–3 µs per channel per cycle (28–32 ms at K = 10,000, even unchanged).",
        ]
        table.print()

        var openTable = Table(
            "   Opening K channels (the store's first cycle, once per K), and one keep snapshot of them",
            header: ["K", "build", "diff + open", "per channel", "keep snapshot"]
        )
        for o in opens {
            openTable.add([
                Format.count(o.k), Format.time(o.build.seconds), Format.time(o.diff.seconds),
                Format.time((o.build + o.diff).seconds / Double(o.k)), Format.time(o.keepSnapshot.seconds),
            ])
        }
        openTable.print()
    }

    /// The same workloads written with memoised supervise, next to the opaque figures of this run.
    static func renderMemoised(_ results: [Result], opens: [OpenResult], runs: Int) {
        var table = Table(
            "2b. Memoised supervise (MemoFleet) vs opaque (Fleet), same run, \(runs) runs (median)",
            header: [
                "K", "churn", "opaque total", "memoised build", "memoised diff", "memoised total", "speed-up", "per changed channel",
                "wall / cycle",
            ]
        )
        table.leftAligned = [1]
        var lastK = 0
        for memo in results where memo.workload == .memoised {
            guard let opaque = results.first(where: { $0.workload == .opaque && $0.k == memo.k && $0.churn == memo.churn }) else {
                continue
            }
            let changed = memo.churn.expectedChanges(k: memo.k) / 2
            table.add([
                memo.k == lastK ? "" : Format.count(memo.k), memo.churn.label,
                Format.time(opaque.total.median), Format.time(memo.build.median), Format.time(memo.diff.median),
                Format.spread(memo.total, Format.time),
                String(format: "%.0f×", opaque.total.median / max(memo.total.median, 1e-9)),
                changed == 0 ? "–" : Format.time(memo.total.median / Double(changed)),
                Format.time(memo.wall.median),
            ])
            lastK = memo.k
        }
        table.notes = [
            "total = build (supervise update, memo comparisons) + diff + apply, from the engine counters, per cycle.",
            "0 % = a batch that changes no supervise input: the lift compares one revision, the reconcile is skipped.",
            "per changed channel = memoised total ÷ channels re-keyed or replaced per cycle (each is a cancel + open);",
            "  flat across K means churn costs O(changes), not O(K): only the members in the change log are re-evaluated.",
            "wall / cycle adds dispatch, reduce, publish and the executor hops, seen from outside.",
        ]
        table.print()
        var openTable = Table("   Opening K channels, memoised workload", header: ["K", "build", "diff + open", "per channel"])
        for o in opens where o.workload == .memoised {
            openTable.add([
                Format.count(o.k), Format.time(o.build.seconds), Format.time(o.diff.seconds),
                Format.time((o.build + o.diff).seconds / Double(o.k)),
            ])
        }
        openTable.print()
    }
}
