import Foundation
import RexSimulation

// Swift seeds its hashing per process; a run iterates dictionaries, so equal seeds give equal
// histories across processes only with a fixed hashing seed: re-run this binary with one.
if ProcessInfo.processInfo.environment["SWIFT_DETERMINISTIC_HASHING"] == nil {
    setenv("SWIFT_DETERMINISTIC_HASHING", "1", 1)
    let arguments = CommandLine.arguments.map { strdup($0) } + [nil]
    execv("/proc/self/exe", arguments)
    FileHandle.standardError.write(Data("rexsim: cannot re-run itself with deterministic hashing\n".utf8))
    exit(2)
}

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    if let message = error.message {
        FileHandle.standardError.write(Data("rexsim: \(message)\n\n\(Options.usage)\n".utf8))
        exit(64)
    }
    print(Options.usage)
    exit(0)
}

var passed = 0
var failed: [UInt64] = []
let batchStart = ContinuousClock.now
var simulated: Duration = .zero
for seed in options.seeds {
    var config = options.config
    config.seed = seed
    var hashes: [String] = []
    var report: SimulationReport?
    var wall: Duration = .zero
    for _ in 0..<options.repeats {
        let start = ContinuousClock.now
        let run = Simulation.run(config)
        wall = ContinuousClock.now - start
        hashes.append(run.traceHash)
        report = run
    }
    let run = report!
    simulated += config.duration + config.settle
    let seconds = Double(wall / .milliseconds(1)) / 1000
    let rate = Double((config.duration + config.settle) / .milliseconds(1)) / 1000 / max(seconds, 0.001)
    let deterministic = Set(hashes).count == 1
    if options.printTrace { for line in run.trace ?? [] { print(line) } }
    let verdict = run.passed && deterministic ? "PASS" : "FAIL"
    print(
        "seed \(seed): \(verdict) trace \(run.traceHash) (\(run.events) events) wall \(String(format: "%.2f", seconds)) s, "
            + "\(String(format: "%.1f", rate)) simulated s per wall s"
            + (options.repeats > 1
                ? ", \(options.repeats) runs \(deterministic ? "one hash" : "HASHES DIFFER: \(Set(hashes).sorted())")" : ""))
    if options.seeds.count == 1 {
        for figure in run.figures { print("  \(figure.name): \(figure.value)") }
    }
    if run.passed && deterministic {
        passed += 1
    } else {
        failed.append(seed)
        for violation in run.violations.prefix(20) { print("  \(violation)") }
        if run.violations.count > 20 { print("  … \(run.violations.count - 20) more") }
        print("  replay: \(config.commandLine)")
    }
}
let total = ContinuousClock.now - batchStart
if options.seeds.count > 1 {
    print(
        "\(options.seeds.count) seeds in \(String(format: "%.1f", Double(total / .milliseconds(1)) / 1000)) s wall "
            + "(\(Double(simulated / .milliseconds(1)) / 1000) simulated s)")
}
print("\(passed) passed, \(failed.count) failed")
exit(failed.isEmpty ? 0 : 1)
