import Foundation
import SwiftRex
import Synchronization

// countdown-bench: the dispatch rate of a store built in this package, against SwiftRex as a
// versioned dependency, with rexbench's dispatch mode (a) workload: a trivial reducer
// (state += 1), N actions dispatched by a closure on the store's own executor, the clock stopped
// when an observer sees state == N, every run checked to have processed exactly N.
//
//   countdown-bench [ACTIONS 1…100,000,000] [RUNS 1…50]      default 1,000,000 × 5

enum Increment: Sendable { case increment }

let counter = Behavior<Increment, Int, Void>.reduce { _, state in state += 1 }

/// One run: seconds from the first dispatch until the observer saw `actions`.
func run(actions: Int) async -> Double {
    let executor = ThreadExecutor(name: "countdown-bench.store")
    defer { executor.stop() }
    let store = Store(initial: 0, behavior: counter, executor: .custom(executor))
    let done = Mutex<CheckedContinuation<ContinuousClock.Instant, Never>?>(nil)
    let reached = Atomic<Bool>(false)
    let token = store.observe { state in
        guard state >= actions, !reached.exchange(true, ordering: .relaxed) else { return }
        let now = ContinuousClock.now
        done.withLock { $0.take() }?.resume(returning: now)
    }
    defer { token.cancel() }
    let start = ContinuousClock.now
    let end = await withCheckedContinuation { continuation in
        done.withLock { $0 = continuation }
        executor.execute {
            for _ in 0..<actions { store.dispatch(.increment) }
        }
    }
    await store.waitUntilIdle()
    precondition(store.state == actions, "store processed \(store.state) of \(actions) actions")
    await store.release()
    return (end - start) / .seconds(1)
}

func parse(_ index: Int, default value: Int, in range: ClosedRange<Int>) -> Int {
    guard CommandLine.arguments.count > index else { return value }
    guard let number = Int(CommandLine.arguments[index]), range.contains(number) else {
        FileHandle.standardError.write(Data("usage: countdown-bench [ACTIONS 1…100,000,000] [RUNS 1…50]\n".utf8))
        exit(64)
    }
    return number
}

let actions = parse(1, default: 1_000_000, in: 1...100_000_000)
let runs = parse(2, default: 5, in: 1...50)
_ = await run(actions: min(actions, 100_000))  // warm-up, as rexbench
var rates: [Double] = []
for _ in 0..<runs { rates.append(Double(actions) / (await run(actions: actions))) }
rates.sort()
let median = rates.count % 2 == 1 ? rates[rates.count / 2] : (rates[rates.count / 2 - 1] + rates[rates.count / 2]) / 2
func millions(_ rate: Double) -> String { String(format: "%.2f M", rate / 1e6) }
print(
    "countdown-bench: dispatch (a) on the store's executor, \(actions) actions, \(runs) runs: \(millions(median))/s median (\(millions(rates.first!)) – \(millions(rates.last!)))"
)
print("EXAMPLE_DISPATCH_PER_S \(Int(median))")
