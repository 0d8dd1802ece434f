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
        let keep = try context.request(node, .keep)
        let channels = keep["channels"]?.elements ?? []
        guard let channel = channels.first(where: { $0["id"]?.stringValue == channelID }) else {
            let ids = channels.compactMap { $0["id"]?.stringValue }
            throw CommandFailure(.failure, "channel '\(channelID)' is not in \(node.id)'s keep set"
                + " — it has: \(ids.isEmpty ? "no channels" : ids.joined(separator: ", ")) (see 'rexctl keep \(node.id)')")
        }
        switch context.globals.output {
        case .json: context.printJSON(channel)
        case .table: context.stdout.write(DescribeCommand.render(channel, node: node.id, style: context.style))
        }
        return .success
    }

    /// Labels for the members an operator knows; others are shown under their own names.
    static let labels: [(key: String, label: String)] = [
        ("lifetime", "Lifetime"), ("resetKey", "Reset key"), ("settleMs", "Settle"),
        ("broadcasting", "Broadcasting"), ("delivery", "Delivery"), ("status", "Status"),
        ("supervised", "Supervised"), ("sinceMs", "Since"), ("ageMs", "Age"), ("opens", "Opens"),
        ("recreates", "Recreates"), ("deliveries", "Delivered"), ("drops", "Dropped"),
    ]

    /// The channel as label/value lines, then its history as a table (both escape what the node sent).
    static func render(_ channel: JSONValue, node: String, style: Style = Style(isEnabled: false)) -> String {
        var fields = FieldList(labelSuffix: ":")
        fields.append("Channel", Formatting.cell(channel["id"]))
        fields.append("Node", node)
        for (key, label) in labels {
            guard let value = channel[key] else { continue }
            switch key {
            case "settleMs", "ageMs": fields.append(label, Formatting.milliseconds(value))
            case "sinceMs": fields.append(label, Formatting.preciseSeconds(value))
            case "status": fields.append(label, Formatting.cell(value), isStatus: true)
            default: fields.append(label, Formatting.cell(value))
            }
        }
        let known = Set(labels.map(\.key) + ["id", "history"])
        for member in channel.members ?? [] where !known.contains(member.key) {
            fields.append(member.key, Formatting.cell(member.value))
        }
        var text = fields.render(style: style)
        let history = channel["history"]?.elements ?? []
        text += "History:" + (history.isEmpty ? " (none)" : "") + "\n"
        if !history.isEmpty {
            var table = Table(columns: [.init("AT", alignment: .right), .init("EVENT"), .init("DETAIL")])
            for entry in history {
                table.append([Formatting.preciseSeconds(entry["atMs"]), Formatting.cell(entry["event"]), detail(entry)])
            }
            for line in table.render(style: style).split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
                text += "  " + line + "\n"
            }
        }
        return text
    }

    /// The words after a history event: why it was recreated, dropped or cancelled.
    static func detail(_ entry: JSONValue) -> String {
        switch entry["event"]?.stringValue {
        case "recreated":
            return "reset key changed from \(Formatting.cell(entry["from"])) to \(Formatting.cell(entry["to"]))"
        default:
            let extras = (entry.members ?? []).filter { $0.key != "atMs" && $0.key != "event" }
            return extras.map { "\($0.key)=\($0.value.displayText)" }.joined(separator: " ")
        }
    }
}
