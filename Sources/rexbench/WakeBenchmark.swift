import SwiftRex

/// Round-trip cost of a single dispatch as a store ages.
///
/// Each round trip dispatches one action from the benchmark's task and awaits `waitUntilIdle()`,
/// so every action is its own batch and costs the store one wake-up (`Mailbox` → `DrainTarget`
/// → executor). Windows of `window` round trips are timed after `checkpoints` round trips have
/// already happened on the same store. A healthy store costs the same at every age; a cost that
/// grows with age means each wake-up does work proportional to the wake-ups before it.
enum WakeBenchmark {
    struct Point {
        let age: Int
        let perRoundTrip: Sample
    }

    static func run(checkpoints: [Int], window: Int, runs: Int) async -> [Point] {
        let executor = ThreadExecutor(name: "rexbench.wake")
        defer { executor.stop() }
        var samplesByAge: [Int: [Double]] = [:]
        for _ in 0..<runs {
            let store = Store(initial: 0, behavior: DispatchBenchmark.counter, executor: .custom(executor))
            var done = 0
            for age in checkpoints {
                while done < age {
                    store.dispatch(.increment)
                    await store.waitUntilIdle()
                    done += 1
                }
                let clock = ContinuousClock()
                let start = clock.now
                for _ in 0..<window {
                    store.dispatch(.increment)
                    await store.waitUntilIdle()
                }
                let elapsed = clock.now - start
                done += window
                samplesByAge[age, default: []].append(elapsed.seconds / Double(window))
            }
            precondition(store.state == done)
            await store.release()
        }
        let points = checkpoints.map { age in
            Point(age: age, perRoundTrip: Sample(samplesByAge[age]!))
        }
        var table = Table(
            "4. One action per batch: round-trip cost as the store ages — \(runs) runs, windows of \(Format.count(window))",
            header: ["wake-ups before window", "round trip median", "min – max"]
        )
        for p in points {
            table.add([
                Format.count(p.age), Format.time(p.perRoundTrip.median),
                "\(Format.time(p.perRoundTrip.min)) – \(Format.time(p.perRoundTrip.max))",
            ])
        }
        table.notes = [
            "Round trip: store.dispatch(_:) from the benchmark task, then await store.waitUntilIdle().",
            "Should be flat. Growth with age means each wake-up costs more than the last (see report).",
        ]
        table.print()
        return points
    }
}
