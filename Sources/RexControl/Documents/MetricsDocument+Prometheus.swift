/// The Prometheus text exposition format (version 0.0.4) of a node's ``MetricsDocument``.
///
/// The same document answers the control `metrics` operation and a node's `GET /metrics`, so the
/// two never disagree: this file only renames and converts (milliseconds to seconds, the
/// histogram's non-empty buckets to cumulative `le` buckets).
///
/// ```swift
/// let text = metrics.prometheusText(nodeID: "n1")
/// // # HELP rexnode_reconcile_cycles_total Reconcile cycles run since the node started.
/// // # TYPE rexnode_reconcile_cycles_total counter
/// // rexnode_reconcile_cycles_total 42
/// ```
extension MetricsDocument {
    /// The `Content-Type` of ``prometheusText(nodeID:)``.
    public static let prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The upper edges of the exported cycle-duration buckets, in nanoseconds: powers of two from
    /// about 1 µs to about 34 s. Fixed, so every scrape has the same series; each is an edge of
    /// the engine's `DurationHistogram` too (its four sub-buckets per power of two end on the next
    /// power), so the cumulative counts are exact, not interpolated.
    public static let prometheusBucketEdgesNanoseconds: [Int] = (10...35).map { 1 << $0 }

    /// The metrics as Prometheus text: `# HELP` and `# TYPE` before each family, base units
    /// (seconds, bytes), `_total` counters, and the cycle-duration histogram as
    /// `_bucket{le=…}` (cumulative, ending with `+Inf`), `_sum` and `_count`.
    ///
    /// - Parameter nodeID: exported as the `node` label of `rexnode_info` (escaped), beside the
    ///   `feature` and `feature_version` the node runs.
    public func prometheusText(nodeID: String) -> String {
        var out = PrometheusWriter()
        let help = "The node's id and the feature it runs, as labels (always 1)."
        if let feature {
            out.gauge("rexnode_info", help, labels: ["node": nodeID, "feature": feature.name, "feature_version": feature.version], 1)
        } else {
            out.gauge("rexnode_info", help, labels: ["node": nodeID], 1)
        }
        out.gauge("rexnode_uptime_seconds", "Seconds since the node started.", Double(uptimeMs) / 1000)

        out.counter("rexnode_reconcile_cycles_total", "Reconcile cycles run since the node started.", reconcile.cycles)
        out.counter(
            "rexnode_reconcile_changed_cycles_total", "Reconcile cycles that opened, recreated or cancelled anything.",
            reconcile.changedCycles)
        out.histogram(
            "rexnode_reconcile_cycle_duration_seconds",
            "Wall time of each reconcile cycle (evaluating supervise plus diffing and applying).",
            edgesNanoseconds: Self.prometheusBucketEdgesNanoseconds,
            buckets: reconcile.histogram.map { ($0.upperEdgeNanoseconds, $0.count) },
            sumSeconds: (reconcile.buildMs + reconcile.diffMs) / 1000)

        // By kind when the node counts them (the kinds cover every channel, so sum() is the
        // total, as for rexnode_channels_live); the total alone from an older node.
        for (name, help, total, byKind) in [
            ("rexnode_channel_opens_total", "Channel instances opened (including recreations)", channels.opens, channels.opensByKind),
            (
                "rexnode_channel_cancels_total", "Channel instances cancelled (including recreations)", channels.cancels,
                channels.cancelsByKind
            ),
            (
                "rexnode_channel_recreates_total", "Channel recreations caused by a reset-key change", channels.recreates,
                channels.recreatesByKind
            ),
        ] {
            if let byKind {
                out.family(name, "\(help), by kind.", type: "counter")
                for (kind, count) in byKind.sorted(by: { $0.key < $1.key }) {
                    out.sample(name, labels: ["kind": kind], Double(count))
                }
            } else {
                out.counter(name, "\(help).", total)
            }
        }
        if let byKind = channels.liveByKind {
            // By kind only: the kinds cover every channel, so sum() is the total, and one family
            // never mixes a total with its parts.
            out.family("rexnode_channels_live", "Channel instances live now, by kind.", type: "gauge")
            for (kind, count) in byKind.sorted(by: { $0.key < $1.key }) {
                out.sample("rexnode_channels_live", labels: ["kind": kind], Double(count))
            }
        } else {
            out.gauge("rexnode_channels_live", "Channel instances live now.", channels.live)
        }

        out.counter("rexnode_messages_published_total", "Data-plane messages published.", messages.published)
        out.counter("rexnode_messages_received_total", "Data-plane messages received.", messages.received)
        out.counter("rexnode_messages_malformed_total", "Received messages not in the wire format.", messages.malformed)
        out.counter("rexnode_messages_oversized_total", "Received messages over the node's limits.", messages.oversized)
        // Sums over the follows held now: a removed or re-topicked follow takes its counts with
        // it, so these can go down and are gauges, not counters (rate() would misread a drop).
        out.gauge(
            "rexnode_follow_gaps",
            "Sequence gaps (messages lost on the way, as at a publisher's full queue), summed over the current follows.",
            messages.gaps)
        out.gauge("rexnode_follow_duplicates", "Duplicate messages, summed over the current follows.", messages.duplicates)
        out.gauge("rexnode_follow_reordered", "Reordered messages, summed over the current follows.", messages.reordered)
        out.gauge("rexnode_follow_restarts", "Sender restarts seen, summed over the current follows.", messages.restarts)
        out.gauge("rexnode_follow_evicted", "Senders evicted, summed over the current follows.", messages.evicted)

        out.counter("rexnode_snapshots_served_total", "Snapshot requests answered.", snapshots.served)
        out.counter("rexnode_snapshots_refused_total", "Values held back by the snapshot rate.", snapshots.refused)
        out.counter("rexnode_refused_actions_total", "Actions refused at the node's limits.", limits.refusedActions)
        out.counter(
            "rexnode_subscriptions_untracked_total", "Peer subscriptions past the tracked distinct prefixes.",
            limits.subscriptionsUntracked)

        out.gauge("rexnode_mailbox_depth", "Inputs waiting for the store's executor now.", mailbox.depth)
        out.gauge("rexnode_mailbox_max_depth", "The most inputs that ever waited for the store's executor.", mailbox.maxDepth)
        out.gauge("rexnode_sockets_open", "ZeroMQ sockets open now.", sockets.open)
        out.counter("rexnode_sockets_created_total", "Dedicated SUB sockets created.", sockets.created)

        if let membership {
            membership.writePrometheus(into: &out)
        } else if let members {
            out.family("rexnode_members", "Peers by status.", type: "gauge")
            for status in Peer.Status.allCases {
                out.sample("rexnode_members", labels: ["status": status.rawValue], Double(members[status]))
            }
        }

        if let controlRequests, !controlRequests.isEmpty {
            out.family(
                "rexnode_control_requests_total", "Control requests answered, by operation and result (ok or the error code).",
                type: "counter")
            for (operation, results) in controlRequests.sorted(by: { $0.key < $1.key }) {
                for (result, count) in results.sorted(by: { $0.key < $1.key }) {
                    out.sample("rexnode_control_requests_total", labels: ["op": operation, "result": result], Double(count))
                }
            }
        }

        if let security {
            out.family("rexnode_handshakes_total", "Connections to the node's CURVE sockets, by the ZAP handler's answer.", type: "counter")
            out.sample("rexnode_handshakes_total", labels: ["result": "allowed"], Double(security.handshakesAllowed))
            out.sample("rexnode_handshakes_total", labels: ["result": "refused"], Double(security.handshakesRefused))
            out.counter("rexnode_forbidden_total", "Control requests refused for the operator's role.", security.forbidden)
        }

        authority?.writePrometheus(into: &out)
        if let journal { out.journal(journal) }

        out.gauge("process_resident_memory_bytes", "Resident memory size in bytes.", process.rssBytes)
        out.gauge("process_open_fds", "Number of open file descriptors.", process.fds)
        if let cpuSeconds = process.cpuSeconds {
            out.counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", cpuSeconds)
        }
        return out.text
    }
}

/// Appends families and samples in the text exposition format.
struct PrometheusWriter {
    var text = ""

    mutating func family(_ name: String, _ help: String, type: String) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(type)\n"
    }

    mutating func sample(_ name: String, labels: KeyValuePairs<String, String> = [:], _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.key)=\"\(Self.escapeLabel($0.value))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.format(value) + "\n"
    }

    mutating func counter(_ name: String, _ help: String, _ value: Int) { counter(name, help, Double(value)) }

    mutating func counter(_ name: String, _ help: String, _ value: Double) {
        family(name, help, type: "counter")
        sample(name, value)
    }

    mutating func gauge(_ name: String, _ help: String, labels: KeyValuePairs<String, String> = [:], _ value: Int) {
        gauge(name, help, labels: labels, Double(value))
    }

    mutating func gauge(_ name: String, _ help: String, labels: KeyValuePairs<String, String> = [:], _ value: Double) {
        family(name, help, type: "gauge")
        sample(name, labels: labels, value)
    }

    /// A histogram from sparse buckets (upper edge in ns, count): each exported edge counts every
    /// duration in a bucket whose upper edge is at or below it, and `+Inf` counts them all.
    mutating func histogram(
        _ name: String, _ help: String, edgesNanoseconds: [Int], buckets: [(upperEdge: Int, count: Int)],
        sumSeconds: Double
    ) {
        family(name, help, type: "histogram")
        let sorted = buckets.sorted { $0.upperEdge < $1.upperEdge }
        var next = sorted.startIndex
        var cumulative = 0
        for edge in edgesNanoseconds {
            while next < sorted.endIndex, sorted[next].upperEdge <= edge {
                cumulative = cumulative.addingReportingOverflow(sorted[next].count).overflow ? Int.max : cumulative + sorted[next].count
                next += 1
            }
            sample(name + "_bucket", labels: ["le": Self.format(Double(edge) / 1e9)], Double(cumulative))
        }
        let total = sorted.reduce(0) { $0.addingReportingOverflow($1.count).overflow ? Int.max : $0 + $1.count }
        sample(name + "_bucket", labels: ["le": "+Inf"], Double(total))
        sample(name + "_sum", sumSeconds)
        sample(name + "_count", Double(total))
    }

    /// A sample value: integers without a fraction, others as Swift prints them (which Go's
    /// ParseFloat, and so Prometheus, reads), and the special values by their exposition names.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func escapeHelp(_ text: String) -> String {
        text.replacingAll("\\", with: "\\\\").replacingAll("\n", with: "\\n")
    }

    static func escapeLabel(_ text: String) -> String {
        escapeHelp(text).replacingAll("\"", with: "\\\"")
    }
}

extension PrometheusWriter {
    /// The `rexnode_journal_*` families of a durable node.
    mutating func journal(_ journal: MetricsDocument.Journal) {
        gauge(
            "rexnode_journal_info", "The node's durability mode, as a label (always 1).",
            labels: ["durability": journal.durability.rawValue], 1)
        counter("rexnode_journal_commits_total", "Journal transactions committed (one per batch of operator actions).", journal.commits)
        counter("rexnode_journal_actions_committed_total", "Operator actions committed to the journal.", journal.actionsCommitted)
        histogram(
            "rexnode_journal_commit_duration_seconds",
            "Wall time of each journal commit (the transaction, with its fsync with --durability batch).",
            edgesNanoseconds: MetricsDocument.prometheusBucketEdgesNanoseconds,
            buckets: journal.commitHistogram.map { ($0.upperEdgeNanoseconds, $0.count) },
            sumSeconds: journal.commitMs / 1000)
        gauge("rexnode_journal_pending_actions", "Accepted operator actions waiting for the journal now.", journal.pendingActions)
        counter("rexnode_journal_compactions_total", "Snapshots written, each folding the journal before it.", journal.compactions)
        family(
            "rexnode_journal_truncated_tails_total",
            "Tails cut off at start: a write-ahead log transaction that never committed (log), journal rows failing their checksum (rows).",
            type: "counter")
        sample("rexnode_journal_truncated_tails_total", labels: ["part": "log"], Double(journal.truncatedLogTails))
        sample("rexnode_journal_truncated_tails_total", labels: ["part": "rows"], Double(journal.truncatedJournalTails))
        gauge(
            "rexnode_journal_failed", "1 once a journal write failed: the node refuses operator actions until restarted.",
            journal.failed ? 1 : 0)
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        guard contains(target) else { return self }
        var result = ""
        for character in self { if character == target { result += replacement } else { result.append(character) } }
        return result
    }
}
