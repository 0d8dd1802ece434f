import Foundation
import ZMQ

/// Runs each measurement for raw ZMQ and for the actor system back to back, alternating which goes
/// first, and prints the table with the ratios and the issue's targets.
struct Comparison {
    let quick: Bool
    let repetitions: Int

    func run() async throws {
        let roundTrips = quick ? 5_000 : 20_000
        let messages = quick ? 50_000 : 200_000
        var rawP50: [Double] = []
        var rawP99: [Double] = []
        var actorP50: [Double] = []
        var actorP99: [Double] = []
        var rawRate: [Double] = []
        var actorRate: [Double] = []
        let started = ContinuousClock.now
        for rep in 1...repetitions {
            for rawFirst in rep % 2 == 1 ? [true, false] : [false, true] {
                if rawFirst {
                    let raw = try RawBench.latency(count: roundTrips)
                    rawP50.append(percentileMicroseconds(raw, 50))
                    rawP99.append(percentileMicroseconds(raw, 99))
                    rawRate.append(try RawBench.throughput(count: messages))
                    log("raw   run \(rep): p50 \(rawP50.last!) µs p99 \(rawP99.last!) µs, \(Int(rawRate.last!)) msg/s")
                } else {
                    let actor = try await ActorBench.latency(count: roundTrips)
                    actorP50.append(percentileMicroseconds(actor, 50))
                    actorP99.append(percentileMicroseconds(actor, 99))
                    actorRate.append(try await ActorBench.throughput(count: messages))
                    log("actor run \(rep): p50 \(actorP50.last!) µs p99 \(actorP99.last!) µs, \(Int(actorRate.last!)) calls/s")
                }
            }
        }
        let elapsed = ContinuousClock.now - started
        print("")
        print("## actorbench: remote calls next to raw libzmq DEALER/ROUTER (tcp loopback, two processes, same run)")
        print(
            "libzmq \(ZMQVersion.current), nproc=\(ProcessInfo.processInfo.activeProcessorCount), \(repetitions) repetition(s), "
                + "median [min–max]; 16-byte argument; \(roundTrips) round trips, \(messages) one-way; wall time \(elapsed.components.seconds) s"
        )
        print("")
        print("| measure | raw ZMQ | actor system | actor/raw | target |")
        print("|---|---:|---:|---:|---|")
        row("round trip p50 (µs)", rawP50, actorP50, target: "≤ 1.5×", lowerIsBetter: true, limit: 1.5)
        row("round trip p99 (µs)", rawP99, actorP99, target: "≤ 2×", lowerIsBetter: true, limit: 2)
        row("one-way (msg/s, calls/s)", rawRate, actorRate, target: "≥ 50 %", lowerIsBetter: false, limit: 0.5)
    }

    private func row(_ name: String, _ raw: [Double], _ actor: [Double], target: String, lowerIsBetter: Bool, limit: Double) {
        let r = median(raw)
        let a = median(actor)
        let ratio = r > 0 ? a / r : 0
        let met = lowerIsBetter ? ratio <= limit : ratio >= limit
        let ratioText = lowerIsBetter ? String(format: "%.2f×", ratio) : String(format: "%.0f %%", 100 * ratio)
        print("| \(name) | \(format(raw)) | \(format(actor)) | \(ratioText) | \(target) \(met ? "met" : "NOT met") |")
    }

    private func median(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.sorted()[(values.count - 1) / 2]
    }

    private func format(_ values: [Double]) -> String {
        let sorted = values.sorted()
        let m = median(values)
        let text = m >= 1000 ? String(format: "%.0f", m) : String(format: "%.1f", m)
        guard sorted.count > 1 else { return text }
        let f = { (v: Double) in v >= 1000 ? String(format: "%.0f", v) : String(format: "%.1f", v) }
        return "\(text) [\(f(sorted.first!))–\(f(sorted.last!))]"
    }

    private func log(_ line: String) {
        FileHandle.standardError.write(Data("  \(line)\n".utf8))
    }
}
