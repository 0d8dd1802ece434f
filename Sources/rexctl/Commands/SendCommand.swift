import RexControl

/// `rexctl send NODE ACTION [ARGS…]`: dispatch an action, once or as a small load generator.
struct SendCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "send",
        abstract: "Send an action to a node (friendly form or raw --json); --count repeats it.",
        discussion: """
            ACTIONS:
              follow NAME TOPIC [--from PEER]  subscribe under NAME (a TOPIC ending in * is a prefix)
              unfollow NAME                    end the follow NAME
              set TOPIC VALUE                  the feed TOPIC holds VALUE (published)
              unset TOPIC                      the feed TOPIC stops existing
              publish TOPIC PAYLOAD            send one message now (not deduplicated)
              add-peer ID ENDPOINT             connect to a peer's PUB endpoint
              remove-peer ID                   disconnect from peer ID
              --json '{"type": ...}'           any action object, sent as is

            Prints what the node accepted and, for a node with a data directory, its
            durability (batch: committed to its journal first; none: not waited for). With
            --count N the action is sent N times, one request at a time, at most --rate R per
            second; '{i}' in an argument (or in the --json text) becomes the repetition number
            1...N. Progress and the achieved rate are printed as it goes.
            """,
        arguments: [
            ArgumentSpec(name: "node", help: "The node id (from the cluster file or --node)."),
            ArgumentSpec(
                name: "action", help: "follow, unfollow, set, unset, publish, add-peer or remove-peer.",
                isOptional: true),
            ArgumentSpec(name: "args", help: "The action's arguments, as listed above.", isOptional: true, isVariadic: true),
        ],
        options: [
            .option("--json", value: "action", help: #"A raw action object, e.g. '{"type":"set","topic":"a","value":"1"}'."#),
            .option("--from", value: "peer", help: "With follow: accept the topic only from this peer."),
            .option("--count", value: "n", help: "Send the action n times (default: 1)."),
            .option(
                "--rate", value: "per-second",
                help: "With --count: at most this many actions per second, e.g. 100 or 100/s."),
        ]
    )

    /// A friendly action form of the feeds node: the word typed, the action's `type`, the
    /// fields its arguments fill, in order.
    struct ActionForm: Sendable {
        var word: String
        var type: String
        var arguments: [String]
    }

    static let forms: [ActionForm] = [
        ActionForm(word: "follow", type: "follow", arguments: ["name", "topic"]),
        ActionForm(word: "unfollow", type: "unfollow", arguments: ["name"]),
        ActionForm(word: "set", type: "set", arguments: ["topic", "value"]),
        ActionForm(word: "unset", type: "unset", arguments: ["topic"]),
        ActionForm(word: "publish", type: "publish", arguments: ["topic", "payload"]),
        ActionForm(word: "add-peer", type: "addPeer", arguments: ["id", "endpoint"]),
        ActionForm(word: "remove-peer", type: "removePeer", arguments: ["id"]),
    ]

    /// What is sent: an action object, from a friendly form or `--json` passed through as is
    /// (the node judges it, so an operator can send what rexctl does not know).
    typealias Action = JSONValue

    /// What `--count` accepts: ten million is more than a day at 100/s.
    static let countRange = 1...10_000_000

    var nodeID: String
    var actionWord: String?
    var actionArguments: [String]
    var json: String?
    var from: String?
    var count = 1
    var rate: Double?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        nodeID = arguments.argument("node") ?? ""
        actionWord = arguments.argument("action")
        actionArguments = arguments.variadic("args")
        json = arguments.value("--json")
        from = arguments.value("--from")
        if let text = arguments.value("--count") {
            count = try NumericOption.count(text, option: "--count", range: SendCommand.countRange)
        }
        if let text = arguments.value("--rate") { rate = try NumericOption.rate(text, option: "--rate") }
    }

    func validate(_ globals: GlobalOptions) throws(UsageError) {
        _ = try action(repetition: nil)
    }

    /// The action to dispatch; `{i}` is replaced by `repetition` when given.
    func action(repetition: Int?) throws(UsageError) -> Action {
        func substitute(_ text: String) -> String {
            guard let repetition else { return text }
            return text.replacing("{i}", with: String(repetition))
        }
        if let json {
            if actionWord != nil {
                throw UsageError("give either an action or --json, not both; nothing was sent")
            }
            if from != nil { throw UsageError("--from goes with 'follow', not with --json; nothing was sent") }
            guard let document = try? ControlCodec.decode(JSONValue.self, from: Array(substitute(json).utf8)) else {
                throw UsageError("--json is not valid JSON; nothing was sent")
            }
            guard document["type"]?.stringValue != nil else {
                throw UsageError(
                    #"--json must be an action object with a "type" string, "#
                        + #"e.g. '{"type":"unset","topic":"a"}'; nothing was sent"#)
            }
            return document
        }
        guard let actionWord else {
            throw UsageError("Missing expected argument '<action>' (or --json)")
        }
        let words = SendCommand.forms.map(\.word)
        guard let form = SendCommand.forms.first(where: { $0.word == actionWord || $0.type == actionWord }) else {
            throw UsageError("unknown action '\(actionWord)' — use one of \(words.joined(separator: ", ")), or --json")
        }
        guard actionArguments.count == form.arguments.count else {
            let expected = form.arguments.map { $0.uppercased() }.joined(separator: " ")
            let plural = form.arguments.count == 1 ? "" : "s"
            throw UsageError(
                "'\(form.word)' expects \(expected) (\(form.arguments.count) argument\(plural), "
                    + "got \(actionArguments.count))")
        }
        if from != nil && form.type != "follow" {
            throw UsageError("--from goes with 'follow', not with '\(form.word)'")
        }
        var members: [String: JSONValue] = ["type": .string(form.type)]
        for (name, value) in zip(form.arguments, actionArguments) { members[name] = .string(substitute(value)) }
        if let from { members["from"] = .string(substitute(from)) }
        return .object(members)
    }

    /// Dispatches one action and checks that the node accepted it.
    static func dispatch(_ action: Action, to node: NodeAddress, context: CommandContext) throws -> DispatchDocument {
        let client = try context.client(for: node)
        let timeout = context.globals.requestTimeout
        let result = try client.request(ControlRequest(.dispatch, action: action), DispatchDocument.self, timeout: timeout)
        guard result.accepted else {
            throw CommandFailure(
                .nodeError, "node \(node.id) did not accept the action: \(TerminalJSON.text((try? ControlCodec.encode(result)) ?? []))")
        }
        return result
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let node = try context.node(nodeID)
        if count == 1 {
            let result = try SendCommand.dispatch(try action(repetition: nil), to: node, context: context)
            switch context.globals.output {
            case .json: context.printJSON(result)
            case .table:
                // The action is JSON text, escaped the JSON way (no raw control characters).
                let action = TerminalJSON.text((try? ControlCodec.encode(result.action)) ?? [])
                context.stdout.line("\(TerminalText.escaped(node.id)) accepted \(action)\(SendCommand.durabilityNote(result.durability))")
            }
            return .success
        }
        return try repeatSending(to: node, context: context)
    }

    /// What the plain output adds for a node with a data directory: how durable the accepted
    /// action is (nothing for a node without one, which keeps nothing across its process).
    static func durabilityNote(_ mode: DurabilityMode?) -> String {
        guard let mode else { return "" }
        return " (durability: \(mode.rawValue))"
    }

    /// The load generator: `count` requests, one outstanding at a time, paced by `rate`.
    private func repeatSending(to node: NodeAddress, context: CommandContext) throws -> ExitCode {
        let clock = ContinuousClock()
        let start = clock.now
        var lastProgress = start
        var accepted = 0
        var durability: DurabilityMode?
        let table = context.globals.output == .table
        func elapsedSeconds() -> Double { (clock.now - start).seconds }
        func summary() -> String {
            let seconds = elapsedSeconds()
            let achieved = seconds > 0 ? Double(accepted) / seconds : 0
            var text =
                "\(node.id) accepted \(accepted)/\(count) actions in \(String(format3: seconds))s"
                + " (\(Formatting.rate(achieved))"
            if let rate { text += "; target \(Formatting.rate(rate))" }
            if let durability { text += "; durability: \(durability.rawValue)" }
            return text + ")"
        }
        for repetition in 1...count {
            if let rate {
                // At most 1e7 / 0.001 s (countRange, rateRange): the conversion cannot trap.
                Pause.until(start.advanced(by: .seconds(Double(repetition) / rate)))
            }
            do {
                durability = try SendCommand.dispatch(try action(repetition: repetition), to: node, context: context).durability
            } catch {
                if table { context.stdout.escapedLine(summary()) }
                throw error
            }
            accepted += 1
            if table, clock.now - lastProgress >= .seconds(1), repetition < count {
                lastProgress = clock.now
                let seconds = elapsedSeconds()
                context.stdout.escapedLine("\(node.id): sent \(accepted)/\(count) (\(Formatting.rate(Double(accepted) / seconds)))")
            }
        }
        if table {
            context.stdout.escapedLine(summary())
        } else {
            let seconds = elapsedSeconds()
            var summary: OrderedJSON = [
                "node": .encoding(node.id), "sent": .encoding(count), "accepted": .encoding(accepted),
                "seconds": .number(String(format3: seconds)),
                "rate": .number(String(format3: seconds > 0 ? Double(accepted) / seconds : 0)),
            ]
            if let durability { summary.append("durability", durability.rawValue) }
            context.printJSON(summary)
        }
        return .success
    }
}

extension String {
    /// A non-negative number with three decimals, e.g. `10.021`.
    init(format3 value: Double) {
        self = Formatting.threeDecimals(value)
    }
}
