import RexControl
import RexFeeds

/// `rexctl nodes`: every node of the cluster at a glance.
struct NodesCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "nodes",
        abstract: "List every node: endpoints, reachable, status as seen by peers, live channels, uptime.",
        discussion: """
            Pings every node at once, then asks the reachable ones for their state (to learn how
            each node sees its peers) and metrics (live channels). STATUS is how the other nodes
            see this one, as their SWIM membership reports it: alive, suspect, dead (crashed) or
            left (stopped), or unknown before it reported on it; mixed views are counted
            (alive:1,dead:1). INCARNATION is the highest the membership reported for it (it rises
            when the node refutes a suspicion or restarts). Exits 2 if any node did not answer.
            """
    )

    init(_ arguments: ParsedArguments) throws(UsageError) {}

    /// What was learned about one node.
    struct Report: Equatable {
        var node: NodeAddress
        var ping: Result<PingDocument, NodeRequestError>
        var state: NodeState?
        var metrics: MetricsDocument?
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let nodes = try context.clusterNodes().nodes
        var clients: [NodeClient?] = []
        var reports: [Report] = []
        for node in nodes {
            do {
                clients.append(try context.client(for: node))
                reports.append(Report(node: node, ping: .failure(NodeRequestError(node: node, kind: .unreachable(timeout: .zero)))))
            } catch let error as NodeRequestError {
                clients.append(nil)
                reports.append(Report(node: node, ping: .failure(error)))
            }
        }
        let timeout = context.globals.requestTimeout
        func ask<Document: Decodable>(_ operation: ControlOperation, _ type: Document.Type, onlyReachable: Bool)
            -> [Int: Result<Document, NodeRequestError>]
        {
            let indices = reports.indices.filter { index in
                clients[index] != nil && (!onlyReachable || (try? reports[index].ping.get()) != nil)
            }
            let results = NodeClient.gather(indices.map { clients[$0]! }, operation, type, timeout: timeout)
            return Dictionary(uniqueKeysWithValues: zip(indices, results))
        }
        for (index, result) in ask(.ping, PingDocument.self, onlyReachable: false) { reports[index].ping = result }
        // A node of another feature has no feeds peers to show: its columns stay empty.
        for (index, result) in ask(.state, JSONValue.self, onlyReachable: true) {
            reports[index].state = (try? result.get())?.decoded(as: NodeState.self)
        }
        for (index, result) in ask(.metrics, MetricsDocument.self, onlyReachable: true) { reports[index].metrics = try? result.get() }

        switch context.globals.output {
        case .json:
            for document in NodesCommand.documents(reports) { context.printJSON(document) }
        case .table:
            context.stdout.write(NodesCommand.table(reports).render(style: context.style, statusColumns: ["REACHABLE", "STATUS"]))
        }

        let failures = reports.compactMap { report -> NodeRequestError? in
            if case .failure(let error) = report.ping { return error }
            return nil
        }
        guard !failures.isEmpty else { return .success }
        if failures.count == 1 {
            context.stderr.errorLine(failures[0].descriptionWithoutHint)
        } else {
            let list = failures.map { "\($0.node.id) (\($0.node.control))" }.joined(separator: ", ")
            context.stderr.errorLine(
                "\(failures.count) of \(reports.count) nodes did not answer within "
                    + "\(DurationParser.format(timeout)): \(list) — are they running?")
        }
        return .nodeError
    }

    /// How one peer sees another: its membership status (dead and left apart), or `unknown`
    /// before the membership reported on it.
    static func shownStatus(_ peer: Peer) -> String { peer.membership?.rawValue ?? peer.status.rawValue }

    /// How the other reachable nodes see `id`: `alive`, or counts when they disagree, or `-`.
    static func statusSeenByPeers(_ id: String, in reports: [Report]) -> String {
        var counts: [String: Int] = [:]
        for report in reports where report.node.id != id {
            if let peer = report.state?.peers[id] { counts[shownStatus(peer), default: 0] += 1 }
        }
        if counts.isEmpty { return "-" }
        if counts.count == 1 { return counts.keys.first! }
        let order = ["alive", "suspect", "dead", "left", "gone", "unknown"]
        return counts.sorted { (order.firstIndex(of: $0.key) ?? 9, $0.key) < (order.firstIndex(of: $1.key) ?? 9, $1.key) }
            .map { "\($0.key):\($0.value)" }.joined(separator: ",")
    }

    /// The highest incarnation the other nodes' membership reported for `id`, or `-`.
    static func incarnationSeenByPeers(_ id: String, in reports: [Report]) -> String {
        let seen = reports.filter { $0.node.id != id }.compactMap { $0.state?.peers[id]?.incarnation }
        return seen.max().map(String.init) ?? "-"
    }

    static func table(_ reports: [Report]) -> Table {
        var table = Table(columns: [
            .init("ID"), .init("CONTROL"), .init("PUB"), .init("REACHABLE"), .init("STATUS"),
            .init("INCARNATION", alignment: .right), .init("CHANNELS", alignment: .right), .init("UPTIME", alignment: .right),
        ])
        for report in reports {
            let ping = try? report.ping.get()
            table.append([
                report.node.id,
                report.node.control,
                ping?.pub ?? report.node.pub ?? "-",
                ping == nil ? "no" : "yes",
                statusSeenByPeers(report.node.id, in: reports),
                incarnationSeenByPeers(report.node.id, in: reports),
                Formatting.cell(report.metrics?.channels.live),
                Formatting.milliseconds(ping?.uptimeMs),
            ])
        }
        return table
    }

    /// One JSON document per node for `-o json` (members in this order; `seenBy` in node order).
    /// `seenBy` has the data plane's statuses (`Peer.Status`: dead and left are `gone` there);
    /// when the membership reported on the node, `membership` follows, by observer: its status
    /// (alive, suspect, dead or left) and incarnation.
    static func documents(_ reports: [Report]) -> [OrderedJSON] {
        reports.map { report in
            let ping = try? report.ping.get()
            var seenBy = OrderedJSON()
            var membership = OrderedJSON()
            for other in reports where other.node.id != report.node.id {
                guard let peer = other.state?.peers[report.node.id] else { continue }
                seenBy.append(other.node.id, peer.status)
                if let status = peer.membership {
                    membership.append(
                        other.node.id, ["status": .encoding(status), "incarnation": .encoding(peer.incarnation)] as OrderedJSON)
                }
            }
            var document: OrderedJSON = [
                "id": .encoding(report.node.id), "control": .encoding(report.node.control),
                "pub": .encoding(ping?.pub ?? report.node.pub), "reachable": .encoding(ping != nil), "seenBy": .object(seenBy),
                "liveChannels": .encoding(report.metrics?.channels.live), "ping": .encoding(ping),
            ]
            if !membership.members.isEmpty { document.append("membership", .object(membership)) }
            if case .failure(let error) = report.ping { document.append("error", error.descriptionWithoutHint) }
            return document
        }
    }
}
