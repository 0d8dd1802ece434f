import Foundation

/// Bytes per live channel: memory growth from opening K channels, measured in fresh processes.
///
/// Each run re-executes this binary as `rexbench --memory-child K`, so earlier benchmarks' freed
/// heap cannot hide the growth. The child trims the heap before and after (`malloc_trim`) and
/// reports RSS growth (`/proc/self/statm`). It includes the engine's registry, reconcile memory and the per-channel stats and handler;
/// they exclude the state's own K keys, which exist before the store does.
enum MemoryBenchmark {
    struct Result {
        let k: Int
        let rssPerChannel: Sample
        let churnedPerChannel: Sample
    }

    static func run(k: Int, runs: Int) throws -> Result {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var rss: [Double] = [], churned: [Double] = []
        for _ in 0..<runs {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--memory-child", String(k)]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let output = String(decoding: data, as: UTF8.self)
            var fields: [String: Int] = [:]
            for pair in output.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
                let parts = pair.split(separator: "=")
                if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
            }
            guard process.terminationStatus == 0, let r = fields["rss"], let c = fields["churned"], fields["live"] == k else {
                throw BenchmarkError.memoryChild(output)
            }
            rss.append(Double(r) / Double(k))
            churned.append(Double(c) / Double(k))
        }
        let result = Result(k: k, rssPerChannel: Sample(rss), churnedPerChannel: Sample(churned))
        var table = Table(
            "3. Memory per live channel — K = \(Format.count(k)), \(runs) fresh processes",
            header: ["measure", "bytes / channel median", "min – max", "total median"]
        )
        table.add([
            "RSS growth (statm, after malloc_trim)", Format.bytes(result.rssPerChannel.median),
            "\(Format.bytes(result.rssPerChannel.min)) – \(Format.bytes(result.rssPerChannel.max))",
            Format.bytes(result.rssPerChannel.median * Double(k)),
        ])
        table.add([
            "RSS growth after \(MemoryProbe.churnRounds) recreates of every channel", Format.bytes(result.churnedPerChannel.median),
            "\(Format.bytes(result.churnedPerChannel.min)) – \(Format.bytes(result.churnedPerChannel.max))",
            Format.bytes(result.churnedPerChannel.median * Double(k)),
        ])
        table.notes = [
            "Second row: the same store after every channel's reset key changed \(MemoryProbe.churnRounds) times (steady state",
            "  of a store whose channels churn: per-id history fills up).","Target ≤ 2 KiB per live channel (judged on RSS)."]
        table.print()
        return result
    }
}

enum BenchmarkError: Error {
    case memoryChild(String)
}
