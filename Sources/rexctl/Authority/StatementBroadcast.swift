import Foundation
import RexAuthority
import RexControl

/// What `admit`, `revoke` and `operators` do once they know the claim: sign it with the
/// cluster authority at the next serial the nodes' ledgers allow (or `--serial`), give it to
/// every node of the cluster at once, and say on how many nodes it was taken.
///
/// ```swift
/// let broadcast = try StatementBroadcast(arguments)       // --serial, --authority
/// return try broadcast.run(.revocation(key: key), context)
/// ```
///
/// A node that took it passes it on to its peers, so one that did not answer gets it from them;
/// still, the exit code is 0 only when every node answered that it holds the statement.
struct StatementBroadcast: Equatable {
    /// `--serial`; nil: one above the highest serial any node holds.
    var serial: UInt64?
    /// `--authority`; nil: `$REXCTL_AUTHORITY`.
    var authorityFile: String?

    /// One node's answer.
    enum Outcome {
        case accepted
        case held
        case failed(NodeRequestError)
    }

    func run(_ claim: Statement.Claim, _ context: CommandContext) throws -> ExitCode {
        let key = try AuthorityCommand.authorityKey(authorityFile, context, requiringSecret: true)
        guard let signingKey = key.signingKey else {
            throw CommandFailure(.failure, "the authority key file holds no signing key")
        }
        return try Self.deliver(context) { clients, timeout throws in
            let serial = try self.serial ?? Self.nextSerial(asking: clients, timeout: timeout)
            do throws(StatementFormatError) {
                return signingKey.sign(try Statement(serial: serial, claim: claim))
            } catch {
                throw UsageError(error.message)
            }
        }
    }

    /// Gives every node the statement `make` returns (given the nodes' clients, once they are
    /// connected) and reports what each answered.
    static func deliver(
        _ context: CommandContext, _ make: ([NodeClient], Duration) throws -> SignedStatement
    ) throws -> ExitCode {
        let nodes = try context.clusterNodes().nodes
        var clients: [NodeClient] = []
        var outcomes: [String: Outcome] = [:]
        for node in nodes {
            do {
                clients.append(try context.client(for: node))
            } catch let error as NodeRequestError {
                outcomes[node.id] = .failed(error)
            }
        }
        let timeout = context.globals.requestTimeout
        let signed = try make(clients, timeout)
        let request = ControlRequest<JSONValue>(.statement, statement: Data(signed.encoded).base64EncodedString())
        for (client, result) in zip(clients, NodeClient.gather(clients, request, StatementReceipt.self, timeout: timeout)) {
            switch result {
            case .success(let receipt): outcomes[client.node.id] = receipt.accepted ? .accepted : .held
            case .failure(let error): outcomes[client.node.id] = .failed(error)
            }
        }
        let ordered = nodes.map { ($0.id, outcomes[$0.id]!) }
        Self.report(signed, ordered, context)
        let taken = ordered.filter { if case .failed = $0.1 { false } else { true } }.count
        guard taken < ordered.count else { return .success }
        context.stderr.errorLine(
            "\(ordered.count - taken) of \(ordered.count) nodes did not take the statement (above); the nodes that took it"
                + " pass it on to their peers")
        return .nodeError
    }

    /// One above the highest serial any node holds.
    ///
    /// - Throws: when no node answers, or none has a cluster authority.
    static func nextSerial(asking clients: [NodeClient], timeout: Duration) throws -> UInt64 {
        let metrics = NodeClient.gather(clients, .metrics, MetricsDocument.self, timeout: timeout)
        let answered = metrics.compactMap { try? $0.get() }
        guard !answered.isEmpty else {
            throw CommandFailure(
                .nodeError, "no node answered: cannot learn the next serial, and no node would take the statement")
        }
        let held = answered.compactMap { $0.authority?.highestSerial }
        guard let highest = held.max() else {
            throw CommandFailure(
                .nodeError,
                "no node has a cluster authority: start the nodes with the authority's public key"
                    + " (authority.pub beside the cluster file, or rexnode --authority FILE)")
        }
        guard highest < UInt64.max else { throw CommandFailure(.failure, "the nodes hold serial \(highest): no serial is left") }
        return highest + 1
    }

    private static func report(_ signed: SignedStatement, _ outcomes: [(String, Outcome)], _ context: CommandContext) {
        let taken = outcomes.filter { if case .failed = $0.1 { false } else { true } }.count
        switch context.globals.output {
        case .json:
            var document = OrderedJSON()
            document.append("statement", StatementDocument.make(signed))
            document.append(
                "nodes",
                .array(
                    outcomes.map { id, outcome in
                        var entry: OrderedJSON = ["node": .encoding(id)]
                        switch outcome {
                        case .accepted: entry.append("result", "accepted")
                        case .held: entry.append("result", "held")
                        case .failed(let error):
                            entry.append("result", "failed")
                            entry.append("error", error.description)
                        }
                        return .object(entry)
                    }))
            document.append("accepted", taken)
            document.append("of", outcomes.count)
            context.printJSON(document)
        case .table:
            context.stdout.line(StatementDocument.line(signed.statement))
            for (id, outcome) in outcomes {
                switch outcome {
                case .accepted: context.stdout.line("  \(id): accepted")
                case .held: context.stdout.line("  \(id): already held")
                case .failed(let error): context.stdout.escapedLine("  \(id): \(error.descriptionWithoutHint)")
                }
            }
            context.stdout.line("accepted on \(taken) of \(outcomes.count) nodes")
        }
    }
}

extension StatementBroadcast {
    /// The options every command that gives nodes a statement takes.
    static let options: [OptionSpec] = [
        .option(
            "--serial", value: "n",
            help: "The statement's serial (default: one above the highest serial any node holds)."),
        .option(
            "--authority", value: "file", help: "The authority's signing key, authority.key (default: $REXCTL_AUTHORITY)."),
    ]

    /// The `--serial` and `--authority` of `arguments`.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        serial = try arguments.value("--serial").map { text throws(UsageError) in try AuthoritySignRequest.serial(text) }
        authorityFile = arguments.value("--authority")
    }
}
