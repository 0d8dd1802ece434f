import RexControl

/// `rexctl describe NODE CHANNEL`: one channel of the keep set in full, with its history.
struct DescribeCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "describe",
        abstract: "Show one channel of a node's keep set in full, with its recent history.",
        discussion: """
            History lines: opened, settling, recreated (the reset key changed from A to B),
            delivered, dropped and cancelled (with their reason), stamped with the time since
            the node started. Exits 1 if the channel is not in the keep set.
            """,
        arguments: [
            ArgumentSpec(name: "node", help: "The node id (from the cluster file or --node)."),
            ArgumentSpec(name: "channel", help: "The channel id, e.g. follow[prices] (see 'rexctl keep NODE')."),
        ]
    )

    var nodeID: String
    var channelID: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        nodeID = arguments.argument("node") ?? ""
        channelID = arguments.argument("channel") ?? ""
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let node = try context.node(nodeID)
        let keep = try context.request(node, .keep, KeepDocument.self)
        guard let channel = keep.channels.first(where: { $0.id == channelID }) else {
            let ids = keep.channels.map(\.id)
            throw CommandFailure(
                .failure,
                "channel '\(channelID)' is not in \(node.id)'s keep set"
                    + " — it has: \(ids.isEmpty ? "no channels" : ids.joined(separator: ", ")) (see 'rexctl keep \(node.id)')")
        }
        switch context.globals.output {
        case .json: context.printJSON(channel)
        case .table: context.stdout.write(DescribeCommand.render(channel, node: node.id, style: context.style))
        }
        return .success
    }

    /// The channel as label/value lines, then its history as a table (both escape what the node sent).
    static func render(_ channel: KeepDocument.Channel, node: String, style: Style = Style(isEnabled: false)) -> String {
        var fields = FieldList(labelSuffix: ":")
        fields.append("Channel", channel.id)
        fields.append("Node", node)
        fields.append("Lifetime", channel.lifetime.rawValue)
        fields.append("Reset key", Formatting.cell(channel.resetKey))
        fields.append("Settle", Formatting.milliseconds(channel.settleMs))
        fields.append("Broadcasting", channel.broadcasting)
        fields.append("Delivery", channel.delivery)
        fields.append("Status", channel.status.rawValue, isStatus: true)
        fields.append("Supervised", channel.supervised ? "true" : "false")
        fields.append("Since", Formatting.preciseSeconds(channel.sinceMs))
        fields.append("Age", Formatting.milliseconds(channel.ageMs))
        fields.append("Opens", Formatting.cell(channel.opens))
        fields.append("Recreates", Formatting.cell(channel.recreates))
        fields.append("Delivered", Formatting.cell(channel.deliveries))
        fields.append("Dropped", Formatting.cell(channel.drops))
        var text = fields.render(style: style)
        text += "History:" + (channel.history.isEmpty ? " (none)" : "") + "\n"
        if !channel.history.isEmpty {
            var table = Table(columns: [.init("AT", alignment: .right), .init("EVENT"), .init("DETAIL")])
            for event in channel.history {
                let (name, detail) = describe(event.kind)
                table.append([Formatting.preciseSeconds(event.atMs), name, detail])
            }
            for line in table.render(style: style).split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
                text += "  " + line + "\n"
            }
        }
        return text
    }

    /// An event's name, and the words after it: why it was recreated, dropped or cancelled.
    static func describe(_ kind: ChannelEvent.Kind) -> (name: String, detail: String) {
        switch kind {
        case .opened: ("opened", "")
        case .settling: ("settling", "")
        case .recreated(let from, let to):
            ("recreated", "reset key changed from \(Formatting.cell(from)) to \(Formatting.cell(to))")
        case .dropped(let reason): ("dropped", "reason=\(reason)")
        case .cancelled(let reason): ("cancelled", "reason=\(reason)")
        }
    }
}
