import RexControl
import RexFeeds

/// `rexctl state NODE`: the node's state — as tables for the feeds feature (feeds, follows,
/// peers), as the document itself for any other feature.
struct StateCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "state",
        abstract: "Show a node's state: settings, feeds, follows and peers (or any feature's document).",
        discussion: """
            For the feeds feature the table view shows the parts an operator reads most; a node
            running another feature shows its state document as indented JSON. -o json prints
            the whole state document on one line, e.g. for 'jq .follows.prices.lastValue'.
            """,
        arguments: [ArgumentSpec(name: "node", help: "The node id (from the cluster file or --node).")]
    )

    var nodeID: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        nodeID = arguments.argument("node") ?? ""
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let node = try context.node(nodeID)
        let tree = try context.request(node, .state, JSONValue.self)
        switch context.globals.output {
        case .json: context.printJSON(tree)
        case .table:
            if let state = tree.decoded(as: NodeState.self) {
                context.stdout.write(StateCommand.render(state, style: context.style))
            } else {
                context.stdout.write(TerminalJSON.indented(tree))
            }
        }
        return .success
    }

    /// The state as a head of label/value lines and sections of tables (all escape what the node sent).
    static func render(_ state: NodeState, style: Style = Style(isEnabled: false)) -> String {
        var head = FieldList()
        // The node's uptime as it answered (older nodes: as of their membership's last report).
        head.append("NODE", "\(state.id)  (up \(Formatting.milliseconds(state.nowMs)))")
        // Settings and limits as the document has them (keys sorted), so new ones show up.
        let settings = (try? JSONValue(encoding: state.settings))?.members.filter { $0.key != "limits" } ?? []
        head.append("SETTINGS", settings.isEmpty ? "-" : settings.map { "\($0.key)=\($0.value.displayText)" }.joined(separator: " "))
        if let limits = try? JSONValue(encoding: state.settings.limits), !limits.members.isEmpty {
            head.append("LIMITS", limits.members.map { "\($0.key)=\($0.value.displayText)" }.joined(separator: " "))
        }
        var text = head.render(style: style)

        text += "\nFEEDS\n"
        if state.feeds.isEmpty {
            text += "(none)\n"
        } else {
            var table = Table(columns: [.init("TOPIC"), .init("VALUE")])
            for (topic, feed) in state.feeds.sorted(by: { $0.key < $1.key }) { table.append([topic, feed.value]) }
            text += table.render(style: style)
        }

        text += "\nFOLLOWS\n"
        if state.follows.isEmpty {
            text += "(none)\n"
        } else {
            var table = Table(columns: [
                .init("NAME"), .init("TOPIC"), .init("FROM"), .init("LAST VALUE"), .init("SENDER"),
                .init("COUNT", alignment: .right), .init("GAPS", alignment: .right),
                .init("DUPS", alignment: .right), .init("OLDER", alignment: .right),
            ])
            for (name, follow) in state.follows.sorted(by: { $0.key < $1.key }) {
                table.append([
                    name, follow.topic, Formatting.cell(follow.from), Formatting.cell(follow.lastValue),
                    Formatting.cell(follow.lastSender), Formatting.cell(follow.count), Formatting.cell(follow.gaps),
                    Formatting.cell(follow.duplicates), Formatting.cell(follow.reordered),
                ])
            }
            text += table.render(style: style)
        }

        text += "\nPEERS\n"
        if state.peers.isEmpty {
            text += "(none)\n"
        } else {
            var table = Table(columns: [
                .init("ID"), .init("ENDPOINT"), .init("STATUS"), .init("INCARNATION", alignment: .right),
                .init("REPORTED ALIVE", alignment: .right),
            ])
            for (id, peer) in state.peers.sorted(by: { $0.key < $1.key }) {
                // How long before the node answered its membership last reported the peer alive: a
                // report is a change, not each answered probe, so this is not "last seen".
                var seen = "never"
                if let lastSeen = peer.lastSeenMs {
                    // A hostile node may send times whose difference overflows: shown as such.
                    seen =
                        Formatting.difference(state.nowMs, lastSeen).map { Formatting.milliseconds(max(0, $0)) + " ago" }
                        ?? "\(lastSeen)ms"
                }
                // The membership's status (dead and left apart) where it reported one.
                table.append([id, peer.endpoint, NodesCommand.shownStatus(peer), Formatting.cell(peer.incarnation), seen])
            }
            text += table.render(style: style, statusColumns: ["STATUS"])
        }
        return text
    }
}
