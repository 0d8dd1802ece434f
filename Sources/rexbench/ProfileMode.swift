import SwiftRex

/// `rexbench --profile-reconcile K none|rekey|replace PERCENT CYCLES [memoised]`: one reconcile
/// workload and nothing else, for `perf record` / `valgrind --tool=callgrind`. Prints build and
/// diff per cycle. `memoised` runs `MemoFleet` instead of `Fleet`.
enum ProfileMode {
    static func parse(_ arguments: [String]) -> (k: Int, churn: ReconcileBenchmark.Churn, cycles: Int, memoised: Bool)? {
        guard arguments.count == 5 || (arguments.count == 6 && arguments[5] == "memoised"), arguments[0] == "--profile-reconcile",
            let k = Int(arguments[1]), let percent = Int(arguments[3]), let cycles = Int(arguments[4])
        else { return nil }
        let churn: ReconcileBenchmark.Churn
        switch arguments[2] {
        case "none": churn = .none
        case "rekey": churn = .rekey(percent: percent)
        case "replace": churn = .replace(percent: percent)
        default: return nil
        }
        return (k, churn, cycles, arguments.count == 6)
    }

    static func run(k: Int, churn: ReconcileBenchmark.Churn, cycles: Int, memoised: Bool) async {
        if memoised {
            await run(k: k, churn: churn, cycles: cycles, initial: MemoFleet.State(count: k), behavior: MemoFleet.behavior)
        } else {
            await run(k: k, churn: churn, cycles: cycles, initial: Fleet.State(count: k), behavior: Fleet.behavior)
        }
    }

    static func run<State: Sendable>(
        k: Int, churn: ReconcileBenchmark.Churn, cycles: Int, initial: State, behavior: Behavior<Fleet.Action, State, Void>
    ) async {
        let executor = ThreadExecutor(name: "rexbench.profile")
        let store = Store(initial: initial, behavior: behavior, executor: .custom(executor))
        await store.waitUntilIdle()
        let before = await store.keep().counters
        for _ in 0..<cycles {
            store.dispatch(churn.action(k: k))
            await store.waitUntilIdle()
        }
        let after = await store.keep().counters
        let n = Double(after.cycles - before.cycles)
        let build = (after.totalBuildDuration - before.totalBuildDuration).seconds / n
        let diff = (after.totalDiffDuration - before.totalDiffDuration).seconds / n
        print("K=\(k) \(churn.label): build \(Format.time(build)), diff \(Format.time(diff)) per cycle over \(Int(n)) cycles")
        await store.release()
        executor.stop()
    }
}
