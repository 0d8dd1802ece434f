import Foundation

// rexbench — SwiftRex performance figures: dispatch throughput, reconcile cost, memory per channel.
// Run with `swift run -c release rexbench [--quick] [--only dispatch|broadcast|reconcile|memory|wake] [--baseline OLD]`.

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "--memory-child", arguments.count == 2, let k = Int(arguments[1]) {
    await MemoryProbe.runChild(k: k)
    exit(0)
}

if let profile = ProfileMode.parse(arguments) {
    await ProfileMode.run(k: profile.k, churn: profile.churn, cycles: profile.cycles, workload: profile.workload)
    exit(0)
}

let configuration: Configuration
do {
    configuration = try Configuration(arguments: arguments)
} catch ConfigurationError.bad(let message) {
    print(message)
    exit(2)
}

print("rexbench\(configuration.quick ? " --quick" : "") — \(ProcessInfo.processInfo.activeProcessorCount) cores, release build expected")
let benchmarkStart = ContinuousClock.now
var summary = Summary()

if configuration.sections.contains(.dispatch) {
    summary.dispatch(await DispatchBenchmark.runAll(actions: configuration.dispatchActions, runs: configuration.dispatchRuns))
}
if configuration.sections.contains(.broadcast) {
    summary.broadcast(await BroadcastBenchmark.runAll(actions: configuration.dispatchActions, runs: configuration.dispatchRuns))
}
if configuration.sections.contains(.reconcile) {
    summary.reconcile(
        await ReconcileBenchmark.runAll(
            ks: configuration.reconcileKs, runs: configuration.reconcileRuns,
            channelCycleBudget: configuration.channelCycleBudget
        ))
}
if configuration.sections.contains(.memory) {
    summary.memory(try MemoryBenchmark.run(k: configuration.memoryK, runs: configuration.memoryRuns, baseline: configuration.baseline))
}
if configuration.sections.contains(.wake) {
    summary.wake(
        await WakeBenchmark.run(
            checkpoints: configuration.wakeCheckpoints, window: configuration.wakeWindow, runs: configuration.wakeRuns
        ))
}
summary.print()
print("\ntotal benchmark time: \(Format.time((ContinuousClock.now - benchmarkStart).seconds))")
