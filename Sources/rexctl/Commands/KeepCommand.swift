/// `rexctl keep NODE | --all`: the engine's keep set as a table.
struct KeepCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "keep",
        abstract: "Show a node's keep set: every live or settling channel with its counters.",
        discussion: """
            Columns: ID, LIFETIME (permanent, or ephemeral with its reset key), SETTLE, DELIVERY,
            STATE (live or settling), AGE, OPENS, RECREATES, DELIVERED, DROPPED. With --all a
            NODE column comes first. With --watch the table is redrawn whenever it changes
            (AGE aside) until --timeout, if given, or Ctrl-C; -o json then prints each new
            keep set as one document.
            """,
        arguments: [
            ArgumentSpec(name: "node", help: "The node id (from the cluster file or --node).", isOptional: true),
        ],
        options: [
            .flag("--all", help: "Show the keep set of every node."),
            .flag("--watch", help: "Redraw when the keep set changes, until --timeout or Ctrl-C."),
        ]
    )

    var nodeID: String?
    var all: Bool
    var watch: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        nodeID = arguments.argument("node")
        all = arguments.has("--all")
        watch = arguments.has("--watch")
    }

    func validate(_ globals: GlobalOptions) throws(UsageError) {
        if nodeID == nil && !all { throw UsageError("Missing expected argument '<node>' (or --all)") }
        if nodeID != nil && all { throw UsageError("give either a node or --all, not both") }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let nodes = all ? try context.clusterNodes().nodes : [try context.node(nodeID!)]
        if watch { return try runWatch(nodes, context: context) }
        let results = try fetch(nodes, context: context, timeout: context.globals.requestTimeout)
        let failures = show(results, context: context)
        for failure in failures { context.stderr.errorLine(failure.description) }
        return failures.isEmpty ? .success : .nodeError
    }

    /// Asks every node for its keep set at once.
    private func fetch(_ nodes: [NodeAddress], context: CommandContext, timeout: Duration) throws
        -> [(node: NodeAddress, result: Result<JSONValue, ControlError>)]
    {
        var clients: [NodeClient] = []
        for node in nodes { clients.append(try context.client(for: node)) }
        let results = NodeClient.gather(clients.map { ($0, .keep) }, timeout: timeout)
        return Array(zip(nodes, results)).map { (node: $0.0, result: $0.1) }
    }

    /// Prints the successful results; returns the failures.
    @discardableResult
    private func show(_ results: [(node: NodeAddress, result: Result<JSONValue, ControlError>)],
                      context: CommandContext) -> [ControlError] {
        var rows: [(node: String?, keep: JSONValue)] = []
        var failures: [ControlError] = []
        for (node, result) in results {
            switch result {
            case .success(let keep): rows.append((all ? node.id : nil, keep))
            case .failure(let error): failures.append(error)
            }
        }
        switch context.globals.output {
        case .json:
            for row in rows { context.printJSON(row.keep) }
        case .table:
            if !rows.isEmpty || failures.isEmpty {
                let table = KeepCommand.table(rows, showNode: all)
                context.stdout.write(table.render(style: context.style, statusColumns: ["STATE"]))
            }
        }
        return failures
    }

    /// Polls every 250 ms and redraws on change, bounded by an explicit `--timeout`.
    private func runWatch(_ nodes: [NodeAddress], context: CommandContext) throws -> ExitCode {
        let clock = ContinuousClock()
        let deadline = context.globals.timeout.map { clock.now.advanced(by: $0) }
        var lastKey: String?
        var lastErrors: [String] = []
        var draws = 0
        while true {
            var requestTimeout = GlobalOptions.defaultTimeout
            if let deadline {
                requestTimeout = .minimum(requestTimeout, max(clock.now.duration(to: deadline), .milliseconds(1)))
            }
            let results = try fetch(nodes, context: context, timeout: requestTimeout)
            let key = results.map { node, result in
                switch result {
                case .success(let keep): return node.id + "=" + KeepCommand.changeKey(keep)
                case .failure(let error): return node.id + "!" + error.description
                }
            }.joined(separator: "\n")
            if key != lastKey {
                lastKey = key
                if context.globals.output == .table {
                    if context.stdout.isTerminal {
                        context.stdout.write("\u{1B}[H\u{1B}[2J")
                    } else if draws > 0 {
                        context.stdout.line()
                    }
                }
                let failures = show(results, context: context)
                let errors = failures.map(\.description)
                if errors != lastErrors {
                    for error in errors { context.stderr.errorLine(error) }
                    lastErrors = errors
                }
                draws += 1
            }
            let next = clock.now.advanced(by: .milliseconds(250))
            if let deadline, next >= deadline {
                Pause.until(deadline)
                return .success
            }
            Pause.until(next)
        }
    }

    /// The keep set without the members that change every poll (ages), to detect real change.
    static func changeKey(_ keep: JSONValue) -> String {
        let channels = keep["channels"]?.elements ?? []
        return channels.map { channel in
            JSONValue.object((channel.members ?? []).filter { $0.key != "ageMs" }).compactText
        }.joined(separator: ",")
    }

    /// The keep table; `rows` pairs each keep result with its node id (shown when `showNode`).
    static func table(_ rows: [(node: String?, keep: JSONValue)], showNode: Bool) -> Table {
        var columns: [Table.Column] = [
            .init("ID"), .init("LIFETIME"), .init("SETTLE", alignment: .right), .init("DELIVERY"), .init("STATE"),
            .init("AGE", alignment: .right), .init("OPENS", alignment: .right), .init("RECREATES", alignment: .right),
            .init("DELIVERED", alignment: .right), .init("DROPPED", alignment: .right),
        ]
        if showNode { columns.insert(.init("NODE"), at: 0) }
        var table = Table(columns: columns)
        for row in rows {
            for channel in row.keep["channels"]?.elements ?? [] {
                var cells = [
                    Formatting.cell(channel["id"]),
                    lifetime(channel),
                    Formatting.milliseconds(channel["settleMs"]),
                    Formatting.cell(channel["delivery"]),
                    Formatting.cell(channel["status"]),
                    Formatting.milliseconds(channel["ageMs"]),
                    Formatting.cell(channel["opens"]),
                    Formatting.cell(channel["recreates"]),
                    Formatting.cell(channel["deliveries"]),
                    Formatting.cell(channel["drops"]),
                ]
                if showNode { cells.insert(row.node ?? "-", at: 0) }
                table.append(cells)
            }
        }
        return table
    }

    /// `permanent`, or `ephemeral key=<reset key>` (`key=-` when it has none).
    static func lifetime(_ channel: JSONValue) -> String {
        let lifetime = Formatting.cell(channel["lifetime"])
        guard lifetime == "ephemeral" else { return lifetime }
        return "ephemeral key=\(Formatting.cell(channel["resetKey"]))"
    }
}
