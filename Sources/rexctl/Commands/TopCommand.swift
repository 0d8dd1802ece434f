import RexControl

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `rexctl top`: every node's activity, sampled and redrawn until `q`.
struct TopCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "top",
        abstract: "A live table of every node: cycles/s, messages in/out per second, channels, mailbox, RSS, members.",
        discussion: """
            Asks every node for its metrics each --interval and shows one row per node: reconcile
            cycles, data-plane messages received (IN) and published (OUT) per second since the
            previous sample, live channels, mailbox depth, resident memory, its peers by status
            and uptime. Rates are measured on each node's own clock; '-' until a second sample.

            On a terminal the table is redrawn in place (alternate screen) until 'q' is pressed
            or --count samples were shown; the terminal is restored on exit and on SIGINT,
            SIGTERM, SIGHUP or SIGQUIT. Otherwise (a pipe, a file) it prints --count samples
            (default 2), each a time line and the table; -o json prints one line per node and sample.
            A node that does not answer within --timeout (default 2s) shows as down. Exits 2
            when a node did not answer the last sample (plain output only).
            """,
        options: [
            .option("--interval", value: "duration", help: "Time between samples (default 1s; 100ms to 1h)."),
            .option(
                "--count", value: "n",
                help: "Stop after n samples (default: until q on a terminal, 2 otherwise)."),
        ]
    )

    static let intervalRange: ClosedRange<Duration> = .milliseconds(100)...(.seconds(3_600))
    static let countRange = 1...1_000_000
    static let plainDefaultCount = 2

    var interval: Duration = .seconds(1)
    var count: Int?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        if let text = arguments.value("--interval") {
            interval = try NumericOption.duration(text, option: "--interval", range: Self.intervalRange)
        }
        if let text = arguments.value("--count") {
            count = try NumericOption.count(text, option: "--count", range: Self.countRange)
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let nodes = try context.clusterNodes().nodes
        guard !nodes.isEmpty else { throw CommandFailure(.failure, "no nodes to watch") }
        var clients: [(node: NodeAddress, client: Result<NodeClient, NodeRequestError>)] = []
        for node in nodes {
            do {
                clients.append((node, .success(try context.client(for: node))))
            } catch let error as NodeRequestError {
                clients.append((node, .failure(error)))
            }
        }
        // The global --timeout, not the interval: a busy node that answers late is slow, not down
        // (the next frame then starts at once rather than bursting to catch up).
        let timeout = context.globals.requestTimeout
        // -o json is for programs: lines, even on a terminal.
        let screen = context.stdout.isTerminal && context.globals.output == .table ? TerminalScreen.enter() : nil
        defer { screen?.leave() }
        let limit = count ?? (screen == nil ? Self.plainDefaultCount : Int.max)

        var previous: [String: MetricsDocument] = [:]
        var rows: [TopTable.Row] = []
        var sample = 0
        var deadline = ContinuousClock.now
        while sample < limit {
            sample += 1
            deadline = deadline.advanced(by: interval)
            rows = Self.sample(clients, timeout: timeout)
            let table = TopTable.table(previous: previous, current: rows)
            let title =
                "rexctl top — \(rows.count) nodes, \(Self.upCount(rows)) up, every "
                + "\(DurationParser.format(interval)) — sample \(sample) at \(Self.clockTime())"
            if let screen {
                screen.draw(
                    [title + " — q quits", ""] + table.render().split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
            } else if context.globals.output == .json {
                for document in TopTable.documents(sample: sample, previous: previous, current: rows) { context.printJSON(document) }
            } else {
                context.stdout.line(title)
                context.stdout.write(table.render())
                if sample < limit { context.stdout.line() }
            }
            for row in rows {
                if case .success(let metrics) = row.metrics { previous[row.id] = metrics } else { previous[row.id] = nil }
            }
            guard sample < limit else { break }
            if let screen {
                if Self.waitForQuit(screen, until: deadline) { break }
            } else {
                Pause.until(deadline)
            }
            // Behind schedule (slow replies): start the next interval now rather than bursting.
            if deadline < ContinuousClock.now { deadline = ContinuousClock.now }
        }
        if screen == nil, rows.contains(where: { if case .failure = $0.metrics { true } else { false } }) {
            return .nodeError
        }
        return .success
    }

    /// Every node's metrics at once, under one deadline.
    static func sample(_ clients: [(node: NodeAddress, client: Result<NodeClient, NodeRequestError>)], timeout: Duration)
        -> [TopTable.Row]
    {
        let reachable = clients.indices.compactMap { index in (try? clients[index].client.get()).map { (index, $0) } }
        let results = NodeClient.gather(reachable.map(\.1), .metrics, MetricsDocument.self, timeout: timeout)
        // Until a reply says otherwise: unreachable, or why no client could be made.
        var rows = clients.map { entry -> TopTable.Row in
            switch entry.client {
            case .success: TopTable.Row(id: entry.node.id, metrics: .failure(unreachable(entry.node, timeout)))
            case .failure(let error): TopTable.Row(id: entry.node.id, metrics: .failure(error))
            }
        }
        for ((index, _), result) in zip(reachable, results) { rows[index].metrics = result }
        return rows
    }

    private static func unreachable(_ node: NodeAddress, _ timeout: Duration) -> NodeRequestError {
        NodeRequestError(node: node, kind: .unreachable(timeout: timeout))
    }

    /// Keys until `deadline`: true when `q` (or `Q`) was pressed.
    static func waitForQuit(_ screen: TerminalScreen, until deadline: ContinuousClock.Instant) -> Bool {
        while let key = screen.key(until: deadline) {
            if key == UInt8(ascii: "q") || key == UInt8(ascii: "Q") { return true }
        }
        return false
    }

    static func upCount(_ rows: [TopTable.Row]) -> Int {
        rows.filter { if case .success = $0.metrics { true } else { false } }.count
    }

    /// The local time of day, `HH:MM:SS`.
    static func clockTime() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }
}
