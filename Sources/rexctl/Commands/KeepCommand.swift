import RexControl

/// `rexctl keep NODE | --all`: the engine's keep set as a table.
struct KeepCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "keep",
        abstract: "Show a node's keep set: every live or settling channel with its counters.",
        discussion: """
            Columns: ID, LIFETIME (permanent, or ephemeral with its reset key), SETTLE, DELIVERY,
            STATE (live or settling), AGE, OPENS, RECREATES, DELIVERED, DROPPED. With --all a
            NODE column comes first. With --watch the nodes push every change (a watch, no
            polling) and the table is redrawn whenever it changes (AGE aside) until --timeout,
            if given, or Ctrl-C; -o json then prints each new keep set as one document.
            """,
        arguments: [
            ArgumentSpec(name: "node", help: "The node id (from the cluster file or --node).", isOptional: true)
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
        let clients = try nodes.map { try context.client(for: $0) }
        let results = NodeClient.gather(clients, .keep, KeepDocument.self, timeout: context.globals.requestTimeout)
        let failures = show(Array(zip(nodes, results)), context: context)
        for failure in failures { context.stderr.errorLine(failure.description) }
        return failures.isEmpty ? .success : .nodeError
    }

    /// Prints the successful results; returns the failures.
    @discardableResult
    private func show(
        _ results: [(node: NodeAddress, result: Result<KeepDocument, NodeRequestError>)],
        context: CommandContext
    ) -> [NodeRequestError] {
        var rows: [(node: String?, keep: KeepDocument)] = []
        var failures: [NodeRequestError] = []
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

    /// Watches every node's keep set and redraws on change, bounded by an explicit `--timeout`.
    private func runWatch(_ nodes: [NodeAddress], context: CommandContext) throws -> ExitCode {
        let clock = ContinuousClock()
        let deadline = context.globals.timeout.map { clock.now.advanced(by: $0) }
        // A node gets the usual time to answer, but no more than the whole watch.
        let requestTimeout = min(GlobalOptions.defaultTimeout, context.globals.timeout ?? GlobalOptions.defaultTimeout)
        let watches = try nodes.map { node in
            NodeWatch(client: try context.client(for: node), documents: [.keep], requestTimeout: requestTimeout)
        }
        defer { for watch in watches { watch.stop() } }
        var shown: [KeepCommand.Shown]?
        var lastErrors: [String] = []
        var draws = 0
        while true {
            try NodeWatch.waitForAny(watches, until: deadline)
            if let deadline, clock.now >= deadline { for watch in watches { watch.giveUp() } }
            let results: [(node: NodeAddress, result: Result<KeepDocument, NodeRequestError>?)] = zip(nodes, watches).map { node, watch in
                if let failure = watch.failure { return (node, .failure(failure)) }
                return (node, watch.keep.map { .success($0) })
            }
            let current = results.map { KeepCommand.Shown(node: $0.node.id, $0.result) }
            let complete = !current.contains(.pending) || deadline.map { clock.now >= $0 } == true
            if current != shown, complete {
                shown = current
                if context.globals.output == .table {
                    if context.stdout.isTerminal {
                        context.stdout.write("\u{1B}[H\u{1B}[2J")
                    } else if draws > 0 {
                        context.stdout.line()
                    }
                }
                let answered = results.compactMap { item in item.result.map { (node: item.node, result: $0) } }
                let failures = show(answered, context: context)
                let errors = failures.map(\.description)
                if errors != lastErrors {
                    for error in errors { context.stderr.errorLine(error) }
                    lastErrors = errors
                }
                draws += 1
            }
            if let deadline, clock.now >= deadline { return .success }
        }
    }

    /// What a redraw showed of one node: its keep set without the ages (they change with every
    /// push, and are no change), or its failure.
    enum Shown: Equatable {
        case pending
        case keep(node: String, [KeepDocument.Channel])
        case failed(node: String, String)

        init(node: String, _ result: Result<KeepDocument, NodeRequestError>?) {
            switch result {
            case nil: self = .pending
            case .success(let keep)?: self = .keep(node: node, keep.ignoringAges.channels)
            case .failure(let error)?: self = .failed(node: node, error.description)
            }
        }
    }

    /// The keep table; `rows` pairs each keep result with its node id (shown when `showNode`).
    static func table(_ rows: [(node: String?, keep: KeepDocument)], showNode: Bool) -> Table {
        var columns: [Table.Column] = [
            .init("ID"), .init("LIFETIME"), .init("SETTLE", alignment: .right), .init("DELIVERY"), .init("STATE"),
            .init("AGE", alignment: .right), .init("OPENS", alignment: .right), .init("RECREATES", alignment: .right),
            .init("DELIVERED", alignment: .right), .init("DROPPED", alignment: .right),
        ]
        if showNode { columns.insert(.init("NODE"), at: 0) }
        var table = Table(columns: columns)
        for row in rows {
            for channel in row.keep.channels {
                var cells = [
                    channel.id,
                    lifetime(channel),
                    Formatting.milliseconds(channel.settleMs),
                    channel.delivery,
                    channel.status.rawValue,
                    Formatting.milliseconds(channel.ageMs),
                    Formatting.cell(channel.opens),
                    Formatting.cell(channel.recreates),
                    Formatting.cell(channel.deliveries),
                    Formatting.cell(channel.drops),
                ]
                if showNode { cells.insert(row.node ?? "-", at: 0) }
                table.append(cells)
            }
        }
        return table
    }

    /// `permanent`, or `ephemeral key=<reset key>` (`key=-` when it has none).
    static func lifetime(_ channel: KeepDocument.Channel) -> String {
        switch channel.lifetime {
        case .permanent: "permanent"
        case .ephemeral: "ephemeral key=\(Formatting.cell(channel.resetKey))"
        }
    }
}
