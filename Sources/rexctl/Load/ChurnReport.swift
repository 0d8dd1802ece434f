import RexControl

/// The figures of one run, per node and in total, and how they are printed and saved.
struct ChurnFigures: Sendable, Equatable {
    var id: String
    var changes: Int
    var achieved: Double
    var target: Double
    /// Reconcile cycles during the run (delta).
    var cycles: Int
    /// Cycle-time percentiles and max during the run: from the difference of the node's
    /// histogram before and after (bucket resolution); older nodes without a histogram report
    /// their lifetime figures instead.
    var p50Ms: Double
    var p99Ms: Double
    var maxMs: Double
    /// Mean cycle cost during the run only: Δ(buildMs + diffMs) / Δcycles.
    var meanMs: Double
    var socketsCreated: Int
    var socketsPerSecond: Double
    var channelRecreates: Int
    var published: Int
    var received: Int
    var gaps: Int
    var depthMax: Int
    var nodeMaxDepth: Int
    var rssBefore: Int
    var rssAfter: Int
    var fdsBefore: Int
    var fdsAfter: Int
}

/// A reconcile-duration histogram as nodes report it: upper bucket edge (ns) → count.
struct CycleHistogram: Sendable, Equatable {
    var counts: [Int: Int] = [:]

    /// Reads `reconcile.histogram`. A node may send any number of buckets, so counts add up
    /// saturating (``saturatingSum(_:_:)``) instead of trapping on overflow; a bucket whose
    /// numbers JSON does not carry exactly (``Formatting/exact(_:)``) is left out.
    init(_ metrics: MetricsDocument?) {
        for bucket in metrics?.reconcile.histogram ?? [] {
            guard let edge = Formatting.exact(bucket.upperEdgeNanoseconds), let count = Formatting.exact(bucket.count) else { continue }
            counts[edge] = CycleHistogram.saturatingSum(counts[edge, default: 0], count)
        }
    }

    var isEmpty: Bool { counts.values.allSatisfy { $0 <= 0 } }

    /// This histogram minus an earlier one of the same node.
    func subtracting(_ earlier: CycleHistogram) -> CycleHistogram {
        var result = self
        for (edge, count) in earlier.counts {
            let negated = count == .min ? .max : -count
            result.counts[edge] = CycleHistogram.saturatingSum(result.counts[edge, default: 0], negated)
        }
        return result
    }

    mutating func add(_ other: CycleHistogram) {
        for (edge, count) in other.counts {
            counts[edge] = CycleHistogram.saturatingSum(counts[edge, default: 0], count)
        }
    }

    /// The upper edge (ms) of the bucket holding the given fraction (0...1) of cycles; 0 when empty.
    func percentileMs(_ fraction: Double) -> Double {
        let total = counts.values.reduce(0) { CycleHistogram.saturatingSum($0, max($1, 0)) }
        guard total > 0 else { return 0 }
        let rank = max(1, Int(exactly: (Double(total) * min(max(fraction, 0), 1)).rounded(.up)) ?? total)
        var seen = 0
        for (edge, count) in counts.sorted(by: { $0.key < $1.key }) where count > 0 {
            seen = CycleHistogram.saturatingSum(seen, count)
            if seen >= rank { return Double(edge) / 1e6 }
        }
        return 0
    }

    /// `a + b`, or `Int.max`/`Int.min` where that would overflow.
    static func saturatingSum(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    var maxMs: Double { Double(counts.filter { $0.value > 0 }.keys.max() ?? 0) / 1e6 }
}

enum ChurnReport {
    /// A counter of `metrics`, 0 when absent or beyond what JSON carries exactly
    /// (``Formatting/exact(_:)``), so that differences of two never overflow.
    static func int(_ metrics: MetricsDocument?, _ field: (MetricsDocument) -> Int) -> Int {
        metrics.flatMap { Formatting.exact(field($0)) } ?? 0
    }

    static func double(_ metrics: MetricsDocument?, _ field: (MetricsDocument) -> Double) -> Double {
        metrics.map(field) ?? 0
    }

    /// Per node, then the total (sums; maxima for latencies and depths).
    static func figures(_ run: ChurnRunResult) -> (nodes: [ChurnFigures], total: ChurnFigures) {
        let seconds = max(run.elapsed, 0.001)
        let targetPerNode = run.settings.rate / Double(run.nodeIDs.count)
        var list: [ChurnFigures] = []
        var allCycles = CycleHistogram(nil as MetricsDocument?)
        for (n, id) in run.nodeIDs.enumerated() {
            let before = run.before[n], end = run.end[n], after = run.after[n]
            let cycles = int(end, \.reconcile.cycles) - int(before, \.reconcile.cycles)
            let cost =
                (double(end, \.reconcile.buildMs) + double(end, \.reconcile.diffMs))
                - (double(before, \.reconcile.buildMs) + double(before, \.reconcile.diffMs))
            let created = int(end, \.sockets.created) - int(before, \.sockets.created)
            let window = CycleHistogram(end).subtracting(CycleHistogram(before))
            allCycles.add(window)
            list.append(
                ChurnFigures(
                    id: id, changes: run.changes[n], achieved: Double(run.changes[n]) / seconds, target: targetPerNode,
                    cycles: cycles, p50Ms: window.isEmpty ? double(end, \.reconcile.p50Ms) : window.percentileMs(0.5),
                    p99Ms: window.isEmpty ? double(end, \.reconcile.p99Ms) : window.percentileMs(0.99),
                    maxMs: window.isEmpty ? double(end, \.reconcile.maxMs) : window.maxMs,
                    meanMs: cycles > 0 ? cost / Double(cycles) : 0,
                    socketsCreated: created, socketsPerSecond: Double(created) / seconds,
                    channelRecreates: int(end, \.channels.recreates) - int(before, \.channels.recreates),
                    published: int(end, \.messages.published) - int(before, \.messages.published),
                    received: int(end, \.messages.received) - int(before, \.messages.received),
                    gaps: int(end, \.messages.gaps) - int(before, \.messages.gaps),
                    depthMax: run.maxSampledDepth[n], nodeMaxDepth: int(end, \.mailbox.maxDepth),
                    rssBefore: int(before, \.process.rssBytes), rssAfter: int(after, \.process.rssBytes),
                    fdsBefore: int(before, \.process.fds), fdsAfter: int(after, \.process.fds)))
        }
        var total = ChurnFigures(
            id: "total", changes: 0, achieved: 0, target: run.settings.rate, cycles: 0, p50Ms: 0, p99Ms: 0, maxMs: 0,
            meanMs: 0, socketsCreated: 0, socketsPerSecond: 0, channelRecreates: 0, published: 0, received: 0, gaps: 0,
            depthMax: 0, nodeMaxDepth: 0, rssBefore: 0, rssAfter: 0, fdsBefore: 0, fdsAfter: 0)
        var weightedCost = 0.0
        for f in list {
            total.changes += f.changes
            total.achieved += f.achieved
            total.cycles += f.cycles
            total.p50Ms = max(total.p50Ms, f.p50Ms)
            total.p99Ms = max(total.p99Ms, f.p99Ms)
            total.maxMs = max(total.maxMs, f.maxMs)
            weightedCost += f.meanMs * Double(f.cycles)
            total.socketsCreated += f.socketsCreated
            total.socketsPerSecond += f.socketsPerSecond
            total.channelRecreates += f.channelRecreates
            total.published += f.published
            total.received += f.received
            total.gaps += f.gaps
            total.depthMax = max(total.depthMax, f.depthMax)
            total.nodeMaxDepth = max(total.nodeMaxDepth, f.nodeMaxDepth)
            total.rssBefore += f.rssBefore
            total.rssAfter += f.rssAfter
            total.fdsBefore += f.fdsBefore
            total.fdsAfter += f.fdsAfter
        }
        if !allCycles.isEmpty {
            // Percentiles of every node's cycles together, not the worst node's.
            total.p50Ms = allCycles.percentileMs(0.5)
            total.p99Ms = allCycles.percentileMs(0.99)
            total.maxMs = allCycles.maxMs
        }
        total.meanMs = total.cycles > 0 ? weightedCost / Double(total.cycles) : 0
        return (list, total)
    }

    // MARK: text

    static func ms(_ value: Double) -> String { Formatting.threeDecimals(value) }

    static func oneDecimal(_ value: Double) -> String { Formatting.oneDecimal(value) }

    static func mebibytes(_ bytes: Int) -> String { oneDecimal(Double(bytes) / 1_048_576) + "M" }

    /// `  12.5s  1998.4/s  live n1=287 n2=290  settling n1=12 n2=9  depth n1=0 n2=3`
    static func progressLine(_ sample: ChurnSample, nodeIDs: [String]) -> String {
        func list(_ value: (ChurnNodeSample) -> Int) -> String {
            zip(nodeIDs, sample.nodes).map { "\($0)=\(value($1))" }.joined(separator: " ")
        }
        let elapsed = oneDecimal(sample.elapsed) + "s"
        let rate = Formatting.rate(sample.rate)
        return String(repeating: " ", count: max(0, 7 - elapsed.count)) + elapsed + "  "
            + String(repeating: " ", count: max(0, 9 - rate.count)) + rate
            + "  live \(list(\.live))  settling \(list(\.settling))  depth \(list(\.depth))"
    }

    /// The two summary tables of one run.
    static func tables(_ run: ChurnRunResult, style: Style) -> String {
        let (nodes, total) = figures(run)
        var first = Table(columns: [
            .init("NODE"), .init("CHANGES/S", alignment: .right), .init("TARGET/S", alignment: .right),
            .init("CYCLES", alignment: .right), .init("P50MS", alignment: .right), .init("P99MS", alignment: .right),
            .init("MAXMS", alignment: .right), .init("MEANMS", alignment: .right), .init("SOCKETS/S", alignment: .right),
        ])
        var second = Table(columns: [
            .init("NODE"), .init("PUBLISHED", alignment: .right), .init("RECEIVED", alignment: .right),
            .init("GAPS", alignment: .right), .init("DEPTHMAX", alignment: .right),
            .init("RSS", alignment: .right), .init("FDS", alignment: .right),
        ])
        for f in nodes + [total] {
            first.append([
                f.id, oneDecimal(f.achieved), oneDecimal(f.target), String(f.cycles), ms(f.p50Ms), ms(f.p99Ms),
                ms(f.maxMs), ms(f.meanMs), oneDecimal(f.socketsPerSecond),
            ])
            second.append([
                f.id, String(f.published), String(f.received), String(f.gaps),
                "\(f.depthMax) (\(f.nodeMaxDepth))", "\(mebibytes(f.rssBefore))→\(mebibytes(f.rssAfter))",
                "\(f.fdsBefore)→\(f.fdsAfter)",
            ])
        }
        return first.render(style: style) + "\n" + second.render(style: style)
    }

    // MARK: JSON

    static func number(_ value: Double) -> OrderedJSON.Value {
        guard value.isFinite else { return .null }
        if value == value.rounded(), abs(value) < 1e15 { return .number(String(Int64(value))) }
        if value < 0.001 || value < 0 { return .number(String(value)) }
        return .number(Formatting.threeDecimals(value))
    }

    static func number(_ value: Int) -> OrderedJSON.Value { .number(String(value)) }

    static func json(_ f: ChurnFigures) -> OrderedJSON {
        [
            "id": .encoding(f.id), "changes": number(f.changes), "achievedPerSecond": number(f.achieved),
            "targetPerSecond": number(f.target),
            "reconcile": .object([
                "cycles": number(f.cycles), "p50Ms": number(f.p50Ms), "p99Ms": number(f.p99Ms),
                "maxMs": number(f.maxMs), "meanMs": number(f.meanMs),
            ]),
            "sockets": .object(["created": number(f.socketsCreated), "createdPerSecond": number(f.socketsPerSecond)]),
            "channelRecreates": number(f.channelRecreates),
            "messages": .object([
                "published": number(f.published), "received": number(f.received), "gaps": number(f.gaps),
            ]),
            "mailbox": .object(["sampledMaxDepth": number(f.depthMax), "nodeMaxDepth": number(f.nodeMaxDepth)]),
            "rssBytes": .object(["before": number(f.rssBefore), "after": number(f.rssAfter)]),
            "fds": .object(["before": number(f.fdsBefore), "after": number(f.fdsAfter)]),
        ]
    }

    static func json(_ run: ChurnRunResult) -> OrderedJSON {
        let (nodes, total) = figures(run)
        let samples: [OrderedJSON.Value] = run.samples.map { sample in
            .object([
                "index": number(sample.index), "elapsedS": number(sample.elapsed), "changesPerSecond": number(sample.rate),
                "nodes": .array(
                    zip(run.nodeIDs, sample.nodes).map { id, s in
                        .object([
                            "id": .encoding(id), "live": number(s.live), "settling": number(s.settling),
                            "churnFollows": number(s.churnFollows), "opens": number(s.opens), "cancels": number(s.cancels),
                            "mailboxDepth": number(s.depth), "fds": number(s.fds), "socketsOpen": number(s.socketsOpen),
                        ])
                    }),
            ])
        }
        return [
            "targetPerSecond": number(run.settings.rate), "durationS": number(run.settings.duration.seconds),
            "elapsedS": number(run.elapsed), "scheduledChanges": number(run.scheduled),
            "followsPerNode": number(run.settings.follows), "feedsPerNode": number(run.settings.feeds),
            "fromPeers": .encoding(run.settings.fromPeers),
            "ok": .encoding(run.violations.isEmpty),
            "violations": .encoding(run.violations.map(\.description)),
            "nodes": .array(nodes.map { .object(json($0)) }), "total": .object(json(total)),
            "samples": .array(samples),
        ]
    }
}
