/// `rexctl state NODE`: the node's state (feeds, follows, peers).
struct StateCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "state",
        abstract: "Show a node's state: settings, feeds, follows and peers.",
        discussion: """
            The table view shows the parts an operator reads most; -o json prints the whole
            state document, e.g. for 'jq .follows.prices.lastValue'.
            """,
        arguments: [ArgumentSpec(name: "node", help: "The node id (from the cluster file or --node).")]
    )

    var nodeID: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        nodeID = arguments.argument("node") ?? ""
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let node = try context.node(nodeID)
        let state = try context.request(node, .state)
        switch context.globals.output {
        case .json: context.printJSON(state)
        case .table: context.stdout.write(StateCommand.render(state, style: context.style))
        }
        return .success
    }

    /// The state as a head of label/value lines and sections of tables (all escape what the node sent).
    static func render(_ state: JSONValue, style: Style = Style(isEnabled: false)) -> String {
        var head = FieldList()
        head.append("NODE", "\(Formatting.cell(state["id"]))  (up \(Formatting.milliseconds(state["nowMs"])))")
        let members = state["settings"]?.members ?? []
        let settings = members.filter { $0.key != "limits" }.map { "\($0.key)=\($0.value.displayText)" }
        head.append("SETTINGS", settings.isEmpty ? "-" : settings.joined(separator: " "))
        if let limits = state["settings"]?["limits"]?.members, !limits.isEmpty {
            head.append("LIMITS", limits.map { "\($0.key)=\($0.value.displayText)" }.joined(separator: " "))
        }
        var text = head.render(style: style)

        text += "\nFEEDS\n"
        let feeds = state["feeds"]?.members ?? []
        if feeds.isEmpty {
            text += "(none)\n"
        } else {
            var table = Table(columns: [.init("TOPIC"), .init("VALUE")])
            for feed in feeds { table.append([feed.key, Formatting.cell(feed.value["value"])]) }
            text += table.render(style: style)
        }

        text += "\nFOLLOWS\n"
        let follows = state["follows"]?.members ?? []
        if follows.isEmpty {
            text += "(none)\n"
        } else {
            var table = Table(columns: [
                .init("NAME"), .init("TOPIC"), .init("FROM"), .init("LAST VALUE"), .init("SENDER"),
                .init("COUNT", alignment: .right), .init("GAPS", alignment: .right),
                .init("DUPS", alignment: .right), .init("OLDER", alignment: .right),
            ])
            for follow in follows {
                let value = follow.value
                table.append([
                    follow.key, Formatting.cell(value["topic"]), Formatting.cell(value["from"]),
                    Formatting.cell(value["lastValue"]), Formatting.cell(value["lastSender"]),
                    Formatting.cell(value["count"]), Formatting.cell(value["gaps"]),
                    Formatting.cell(value["duplicates"]), Formatting.cell(value["reordered"]),
                ])
            }
            text += table.render(style: style)
        }

        text += "\nPEERS\n"
        let peers = state["peers"]?.members ?? []
        if peers.isEmpty {
            text += "(none)\n"
        } else {
            var table = Table(columns: [
                .init("ID"), .init("ENDPOINT"), .init("STATUS"), .init("LAST SEEN", alignment: .right),
                .init("HEARTBEAT", alignment: .right), .init("GAPS", alignment: .right),
                .init("RESTARTS", alignment: .right),
            ])
            let now = state["nowMs"]?.doubleValue
            for peer in peers {
                let value = peer.value
                var seen = "never"
                if let lastSeen = value["lastSeenMs"]?.doubleValue {
                    seen = now.map { Formatting.milliseconds(max(0, $0 - lastSeen)) + " ago" }
                        ?? Formatting.milliseconds(value["lastSeenMs"])
                }
                table.append([
                    peer.key, Formatting.cell(value["endpoint"]), Formatting.cell(value["status"]), seen,
                    Formatting.cell(value["lastHeartbeat"]), Formatting.cell(value["gaps"]),
                    Formatting.cell(value["restarts"]),
                ])
            }
            text += table.render(style: style, statusColumns: ["STATUS"])
        }
        return text
    }
}
