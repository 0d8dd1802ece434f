import RexControl

/// What `rexctl top` shows: one row per node from two successive metrics samples.
///
/// Rates are counter differences over the node's own uptime difference (its clock, not
/// rexctl's), so a slow reply does not skew them; a node that restarted in between (its uptime
/// went down) or counters that went backwards show `-` until the next sample. Every number is a
/// node's reply, hostile input: differences are checked (``Formatting/difference(_:_:)``) and
/// rates formatted without integer conversions that could trap.
///
/// ```
/// NODE  STATUS  CYCLES/S  IN/S   OUT/S  CHANNELS  MAILBOX  RSS      MEMBERS  UPTIME
/// n1    up          10.0  20.0   300.0         6        0  27.1MiB  alive:2  1m5s
/// n2    down           -     -       -         -        -  -        -        -
/// ```
enum TopTable {
    /// One node in one sample: its metrics, or why it did not answer.
    struct Row: Sendable {
        var id: String
        var metrics: Result<MetricsDocument, NodeRequestError>
    }

    /// The rates between two documents of one node, per second; nil where they cannot be told.
    struct Rates: Equatable, Sendable {
        var cycles: Double?
        var received: Double?
        var published: Double?
    }

    static let columns: [Table.Column] = [
        .init("NODE"), .init("STATUS"), .init("CYCLES/S", alignment: .right), .init("IN/S", alignment: .right),
        .init("OUT/S", alignment: .right), .init("CHANNELS", alignment: .right), .init("MAILBOX", alignment: .right),
        .init("RSS", alignment: .right), .init("MEMBERS"), .init("UPTIME", alignment: .right),
    ]

    /// The table for `current`, with rates against the same node's document in `previous`.
    static func table(previous: [String: MetricsDocument], current: [Row]) -> Table {
        var table = Table(columns: columns)
        for row in current {
            guard case .success(let metrics) = row.metrics else {
                table.append([row.id, "down", "-", "-", "-", "-", "-", "-", "-", "-"])
                continue
            }
            let rates = previous[row.id].map { Self.rates(from: $0, to: metrics) } ?? Rates()
            table.append([
                row.id, "up", cell(rates.cycles), cell(rates.received), cell(rates.published),
                Formatting.cell(metrics.channels.live), Formatting.cell(metrics.mailbox.depth),
                mebibytes(metrics.process.rssBytes), members(metrics.members), Formatting.milliseconds(metrics.uptimeMs),
            ])
        }
        return table
    }

    /// Counter differences over the uptime difference, in seconds.
    static func rates(from earlier: MetricsDocument, to later: MetricsDocument) -> Rates {
        guard let elapsedMs = Formatting.difference(later.uptimeMs, earlier.uptimeMs), elapsedMs > 0 else { return Rates() }
        let seconds = Double(elapsedMs) / 1_000
        func rate(_ field: (MetricsDocument) -> Int) -> Double? {
            guard let delta = Formatting.difference(field(later), field(earlier)), delta >= 0 else { return nil }
            return Double(delta) / seconds
        }
        return Rates(cycles: rate(\.reconcile.cycles), received: rate(\.messages.received), published: rate(\.messages.published))
    }

    /// A rate cell: one decimal, `-` when unknown.
    static func cell(_ rate: Double?) -> String { rate.map(Formatting.oneDecimal) ?? "-" }

    /// Resident memory in MiB with one decimal, e.g. `27.1MiB`; `-` when negative.
    static func mebibytes(_ bytes: Int) -> String {
        bytes < 0 ? "-" : Formatting.oneDecimal(Double(bytes) / 1_048_576) + "MiB"
    }

    /// The node's peers by status, non-zero ones only, e.g. `alive:2` or `alive:1,gone:1`;
    /// `none` without peers, `-` when the node did not say.
    static func members(_ members: MetricsDocument.Members?) -> String {
        guard let members else { return "-" }
        let parts = Peer.Status.allCases.compactMap { status in
            members[status] == 0 ? nil : "\(status.rawValue):\(members[status])"
        }
        return parts.isEmpty ? "none" : parts.joined(separator: ",")
    }

    /// One JSON document per node for `-o json` (members in this order).
    static func documents(sample: Int, previous: [String: MetricsDocument], current: [Row]) -> [OrderedJSON] {
        current.map { row in
            var document: OrderedJSON = ["sample": .encoding(sample), "id": .encoding(row.id)]
            switch row.metrics {
            case .success(let metrics):
                let rates = previous[row.id].map { Self.rates(from: $0, to: metrics) } ?? Rates()
                document.append("reachable", true)
                document.append("cyclesPerSecond", .encoding(rates.cycles.flatMap(finite)))
                document.append("receivedPerSecond", .encoding(rates.received.flatMap(finite)))
                document.append("publishedPerSecond", .encoding(rates.published.flatMap(finite)))
                document.append("liveChannels", metrics.channels.live)
                document.append("mailboxDepth", metrics.mailbox.depth)
                document.append("rssBytes", metrics.process.rssBytes)
                document.append("members", .encoding(metrics.members))
                document.append("uptimeMs", metrics.uptimeMs)
            case .failure(let error):
                document.append("reachable", false)
                document.append("error", error.descriptionWithoutHint)
            }
            return document
        }
    }

    private static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
}
