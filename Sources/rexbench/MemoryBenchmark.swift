import Foundation

/// Bytes per live channel: memory growth from opening K channels, measured in fresh processes.
///
/// Each run re-executes this binary as `rexbench --memory-child K`, so earlier benchmarks' freed
/// heap cannot hide the growth. The child trims the heap before and after (`malloc_trim`) and
/// reports RSS growth (`/proc/self/statm`). It includes the engine's registry, reconcile memory and the per-channel stats and handler;
/// they exclude the state's own K keys, which exist before the store does.
///
/// With `--baseline OLD` (an earlier build of rexbench) the same child of that binary runs
/// alternately with this one's, so both figures come from the same machine in the same minute.
enum MemoryBenchmark {
    /// Targets of issue 15 (the original library's 685 B, rounded up; and after churn).
    static let liveTarget = 700.0
    static let churnedTarget = 1_024.0

    struct Figures {
        let rssPerChannel: Sample
        let churnedPerChannel: Sample
    }

    struct Result {
        let k: Int
        let rssPerChannel: Sample
        let churnedPerChannel: Sample
        /// The baseline binary's figures, when one was given.
        let baseline: Figures?
    }

    static func run(k: Int, runs: Int, baseline: String?) throws -> Result {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var rss: [Double] = [], churned: [Double] = []
        var baseRSS: [Double] = [], baseChurned: [Double] = []
        for _ in 0..<runs {
            let own = try child(executable, k: k)
            rss.append(own.rss)
            churned.append(own.churned)
            if let baseline {
                let old = try child(baseline, k: k)
                baseRSS.append(old.rss)
                baseChurned.append(old.churned)
            }
        }
        let base = baseline == nil ? nil : Figures(rssPerChannel: Sample(baseRSS), churnedPerChannel: Sample(baseChurned))
        let result = Result(k: k, rssPerChannel: Sample(rss), churnedPerChannel: Sample(churned), baseline: base)
        var table = Table(
            "3. Memory per live channel — K = \(Format.count(k)), \(runs) fresh processes",
            header: ["measure", "target", "bytes / channel median", "min – max", "total median", "baseline median"]
        )
        table.add([
            "RSS growth (statm, after malloc_trim)", "≤ \(Format.bytes(liveTarget))", Format.bytes(result.rssPerChannel.median),
            "\(Format.bytes(result.rssPerChannel.min)) – \(Format.bytes(result.rssPerChannel.max))",
            Format.bytes(result.rssPerChannel.median * Double(k)),
            base.map { Format.bytes($0.rssPerChannel.median) } ?? "—",
        ])
        table.add([
            "RSS growth after \(MemoryProbe.churnRounds) recreates of every channel", "≤ \(Format.bytes(churnedTarget))",
            Format.bytes(result.churnedPerChannel.median),
            "\(Format.bytes(result.churnedPerChannel.min)) – \(Format.bytes(result.churnedPerChannel.max))",
            Format.bytes(result.churnedPerChannel.median * Double(k)),
            base.map { Format.bytes($0.churnedPerChannel.median) } ?? "—",
        ])
        table.notes = [
            "Second row: the same store after every channel's reset key changed \(MemoryProbe.churnRounds) times (steady state",
            "  of a store whose channels churn: per-id history fills up).",
            baseline.map { "Baseline: \($0) --memory-child \(k), run alternately with this build's child." }
                ?? "No baseline (pass --baseline PATH, an earlier rexbench build, to measure it in the same run).",
        ]
        table.print()
        return result
    }

    /// One fresh child process of `executable`: bytes per channel, live and after churn.
    private static func child(_ executable: String, k: Int) throws -> (rss: Double, churned: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--memory-child", String(k)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // The child prints one short line; anything past 4 KiB is not ours to parse.
        let output = String(decoding: data.prefix(4_096), as: UTF8.self)
        var fields: [String: Int] = [:]
        for pair in output.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
        }
        guard process.terminationStatus == 0, let r = fields["rss"], let c = fields["churned"], fields["live"] == k else {
            throw BenchmarkError.memoryChild("\(executable): \(output)")
        }
        return (Double(r) / Double(k), Double(c) / Double(k))
    }
}

enum BenchmarkError: Error {
    case memoryChild(String)
}
