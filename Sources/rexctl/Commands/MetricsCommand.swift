import RexControl

/// `rexctl metrics NODE`: the node's counters, one per line.
struct MetricsCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "metrics",
        abstract: "Show a node's counters: reconcile, channels, messages, mailbox, sockets, process.",
        discussion: """
            The table lists every counter by its dotted path (reconcile.cycles, mailbox.depth, ...);
            -o json prints the node's metrics document.
            """,
        arguments: [ArgumentSpec(name: "node", help: "The node id (from the cluster file or --node).")]
    )

    var nodeID: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        nodeID = arguments.argument("node") ?? ""
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let node = try context.node(nodeID)
        let metrics = try context.request(node, .metrics, MetricsDocument.self)
        switch context.globals.output {
        case .json: context.printJSON(metrics)
        case .table: context.stdout.write(MetricsCommand.table(metrics).render(style: context.style))
        }
        return .success
    }

    /// Every leaf of the document as METRIC (dotted path) and VALUE, keys in document order
    /// (sorted), so counters a newer node adds show up too.
    static func table(_ metrics: MetricsDocument) -> Table {
        table((try? JSONValue(encoding: metrics)) ?? .null)
    }

    static func table(_ document: JSONValue) -> Table {
        var table = Table(columns: [.init("METRIC"), .init("VALUE", alignment: .right)])
        func visit(_ value: JSONValue, path: String) {
            let members = value.members
            if !members.isEmpty {
                for member in members { visit(member.value, path: path.isEmpty ? member.key : "\(path).\(member.key)") }
            } else {
                table.append([path, value.displayText])
            }
        }
        visit(document, path: "")
        return table
    }
}
