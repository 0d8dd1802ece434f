import BenchSupport
import Foundation

/// Runs the Swift benchmarks and the C baseline side by side and prints the ratio table.
///
/// Each measurement runs in a fresh process (`zmqbench thr …` / `zmqbench recreate …` for Swift,
/// the C baseline's `thr` / `churn` binaries for C), alternating which goes first, so both see
/// the same machine at the same time. Figures are medians over the repetitions.
struct Comparison {
    var quick = false
    var repetitions = 5
    var runC = true
    var baselineDirectory = BaselineLocation.defaultDirectory
    var buildDirectory = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/zmqbench-c"

    private struct Case: Hashable {
        let name: String
        let swiftArguments: [String]
        let cArguments: (binary: String, arguments: [String])
        let metric: String
        static func == (l: Case, r: Case) -> Bool { l.name == r.name }
        func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }

    func run() {
        let small = quick ? 100_000 : 1_000_000
        let big = quick ? 20_000 : 200_000
        let cycles = quick ? 2_000 : 10_000
        let reps = quick ? 1 : repetitions
        let cAvailable = runC && buildBaseline()

        var cases: [Case] = []
        for transport in ["inproc", "ipc", "tcp"] {
            for (size, count) in [(16, small), (256, small), (4096, big)] {
                cases.append(
                    Case(
                        name: "thr \(transport) \(size) B ×\(count)",
                        swiftArguments: ["thr", transport, "\(size)", "\(count)", "0"],
                        cArguments: ("thr", [transport, "\(size)", "\(count)", "0"]),
                        metric: "msg_s"))
            }
        }
        // CURVE: the Swift pair with CURVE on the PUB/SUB, next to raw libzmq with CURVE
        // (deploy/bench/curve_thr.c: two threads with a context each, the publisher's I/O
        // thread apart from the subscriber's, as the Swift run's two processes).
        if !cAvailable || buildCurveBaseline() {
            cases.append(
                Case(
                    name: "thr tcp 16 B CURVE ×\(small / 5)",
                    swiftArguments: ["thr", "tcp", "16", "\(small / 5)", "0", "curve"],
                    cArguments: ("curve_thr", ["curve", "16", "\(small / 5)"]),
                    metric: "msg_s"))
        }
        cases.append(
            Case(
                name: "recreate SUB vs reactive XPUB (tcp) ×\(cycles)",
                swiftArguments: ["recreate", "\(cycles)"],
                cArguments: ("churn", ["recreate", "\(cycles)", "xpub"]),
                metric: "cycles_s"))

        var swiftResults: [String: [Double]] = [:]
        var cResults: [String: [Double]] = [:]
        var pairedRatios: [String: [Double]] = [:]  // Swift/C of the two runs made back to back
        let started = ContinuousClock.now
        for rep in 1...reps {
            for item in cases {
                let order = rep % 2 == 1 ? [true, false] : [false, true]
                var pair: [Bool: Double] = [:]
                for isSwift in order {
                    if !isSwift && !cAvailable { continue }
                    let value = measure(item, swift: isSwift, rep: rep)
                    if let value {
                        pair[isSwift] = value
                        if isSwift {
                            swiftResults[item.name, default: []].append(value)
                        } else {
                            cResults[item.name, default: []].append(value)
                        }
                    }
                }
                if let s = pair[true], let c = pair[false], c > 0 {
                    pairedRatios[item.name, default: []].append(s / c)
                }
            }
        }
        let elapsed = ContinuousClock.now - started

        print("")
        print("## zmqbench: Swift ZMQ layer vs C baseline (libzmq, same machine, same run)")
        print(
            "machine: nproc=\(ProcessInfo.processInfo.activeProcessorCount), \(reps) repetition(s), "
                + "median [min–max]; throughput: [12 B topic, payload] PUB→SUB, HWM 0; "
                + "wall time \(elapsed.components.seconds) s")
        print("")
        print("| case | metric | Swift | C | Swift/C (medians) | Swift/C (median of paired runs) |")
        print("|---|---|---:|---:|---:|---:|")
        for item in cases {
            let swift = swiftResults[item.name] ?? []
            let c = cResults[item.name] ?? []
            let ratio: String
            if let s = median(swift), let cm = median(c), cm > 0 {
                ratio = String(format: "%.0f %%", 100 * s / cm)
            } else {
                ratio = "–"
            }
            let paired = median(pairedRatios[item.name] ?? []).map { String(format: "%.0f %%", 100 * $0) } ?? "–"
            print(
                "| \(item.name) | \(item.metric == "msg_s" ? "msg/s" : "cycles/s") | \(format(swift)) | \(format(c)) "
                    + "| \(ratio) | \(paired) |")
        }
    }

    private func measure(_ item: Case, swift: Bool, rep: Int) -> Double? {
        let child: ChildProcess
        let label = "\(swift ? "swift" : "c    ") \(item.name) (run \(rep))"
        if swift {
            let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            child = ChildProcess(executable: exe, arguments: item.swiftArguments)
        } else {
            child = ChildProcess(executable: "\(buildDirectory)/\(item.cArguments.binary)", arguments: item.cArguments.arguments)
        }
        child.start()
        let (output, status) = child.collectOutput(timeout: .seconds(150))
        let line = output.split(separator: "\n").last.map(String.init) ?? ""
        guard status == 0, let text = field(item.metric, in: line), let value = Double(text) else {
            FileHandle.standardError.write(Data("  \(label): FAILED (status \(status.map(String.init) ?? "killed")) \(output)\n".utf8))
            return nil
        }
        FileHandle.standardError.write(Data("  \(label): \(Int(value)) \(item.metric)\n".utf8))
        return value
    }

    /// Compiles deploy/bench/curve_thr.c (from the repository the benchmark runs in) beside them.
    private func buildCurveBaseline() -> Bool {
        let source = FileManager.default.currentDirectoryPath + "/deploy/bench/curve_thr.c"
        guard FileManager.default.fileExists(atPath: source) else {
            FileHandle.standardError.write(Data("zmqbench: no \(source) (run from the repository root): no CURVE case\n".utf8))
            return false
        }
        let gcc = ChildProcess(
            executable: "/usr/bin/env",
            arguments: [
                "gcc", "-O2", "-Wall", "-o", "\(buildDirectory)/curve_thr", source, "-lzmq", "-lpthread",
            ])
        gcc.start()
        return gcc.collectOutput(timeout: .seconds(60)).1 == 0
    }

    /// Compiles the C programs into the build directory (see `CBaseline`).
    private func buildBaseline() -> Bool {
        guard CBaseline.build(from: baselineDirectory, into: buildDirectory) else {
            FileHandle.standardError.write(Data("zmqbench: cannot build the C baseline from \(baselineDirectory); Swift only\n".utf8))
            return false
        }
        return true
    }

    private func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        return values.sorted()[(values.count - 1) / 2]
    }

    private func format(_ values: [Double]) -> String {
        guard let m = median(values) else { return "–" }
        let sorted = values.sorted()
        if sorted.count > 1 {
            return "\(Int(m)) [\(Int(sorted.first!))–\(Int(sorted.last!))]"
        }
        return "\(Int(m))"
    }
}
