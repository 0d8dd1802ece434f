import Foundation

/// The final table: each target of the issue, the figure measured against it, PASS or MISS.
struct Summary {
    private var table = Table("Summary — targets", header: ["target", "goal", "measured (median)", "reference (original)", "verdict"])
    private(set) var misses = 0

    init() {}

    /// One row; `pass` nil for a figure without a target.
    mutating func add(_ target: String, goal: String, measured: String, reference: String, pass: Bool?) {
        table.add([target, goal, measured, reference, pass.map { $0 ? "PASS" : "MISS" } ?? "–"])
        if pass == false { misses += 1 }
    }

    mutating func dispatch(_ results: [(DispatchBenchmark.Mode, Sample)]) {
        for (mode, sample) in results {
            add(
                "dispatch \(mode.shortLabel)", goal: "≥ 4 M/s",
                measured: "\(Format.rate(sample.median))/s", reference: "~0.8 M/s", pass: sample.median >= 4e6
            )
        }
    }

    /// Broadcasts have no target of their own; listed for the node's publish path.
    mutating func broadcast(_ sample: Sample) {
        add("broadcast into a channel", goal: "–", measured: "\(Format.rate(sample.median))/s", reference: "–", pass: nil)
    }

    /// The reconcile targets are judged on the reconcile itself (diff + apply), which the
    /// issue separates from building the desired set; the whole cycle (with the benchmark's own
    /// supervise building 10,000 channels) is listed next to it, unjudged.
    mutating func reconcile(_ results: [ReconcileBenchmark.Result]) {
        for r in results where r.k == 10_000 {
            let limit: Double
            let name: String
            switch r.churn {
            case .none: (limit, name) = (1e-3, "K=10,000 unchanged set")
            case .rekey(1), .replace(1): (limit, name) = (3e-3, "K=10,000 \(r.churn.label)")
            default: continue
            }
            add("\(name): reconcile", goal: "≤ \(Format.time(limit))", measured: Format.time(r.diff.median),
                reference: "28–32 ms", pass: r.diff.median <= limit)
            table.add(["\(name): + supervise", "—", "\(Format.time(r.total.median)) (build \(Format.time(r.build.median)))", "", "—"])
        }
    }

    mutating func memory(_ result: MemoryBenchmark.Result) {
        add("bytes / live channel (K=\(Format.count(result.k)))", goal: "≤ 2 KiB",
            measured: Format.bytes(result.rssPerChannel.median), reference: "—", pass: result.rssPerChannel.median <= 2048)
        add("bytes / channel after \(MemoryProbe.churnRounds) recreates each", goal: "≤ 2 KiB",
            measured: Format.bytes(result.churnedPerChannel.median), reference: "—", pass: result.churnedPerChannel.median <= 2048)
    }

    /// Not a target of the issue, but a regression check: a wake-up must not cost more as the store ages.
    mutating func wake(_ points: [WakeBenchmark.Point]) {
        guard let first = points.first, let last = points.last, points.count > 1 else { return }
        let ratio = last.perRoundTrip.median / first.perRoundTrip.median
        add("round trip after \(Format.count(last.age)) wake-ups", goal: "≤ 2× a new store's",
            measured: String(format: "%.1f× (%@ vs %@)", ratio, Format.time(last.perRoundTrip.median), Format.time(first.perRoundTrip.median)),
            reference: "—", pass: ratio <= 2)
    }

    func print() {
        var table = self.table
        table.notes = [
            "reconcile = diff + apply per cycle (engine counters); + supervise adds building the desired set",
            "(the workload's own supervise: 10,000 Channel values) and freeing it. dispatch is actions/s.",
        ]
        table.print()
    }
}
