import RexControl
import RexFeeds

/// `rexctl wait NODE --for CONDITION`: watch until a condition holds (0) or time runs out (1).
struct WaitCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "wait",
        abstract: "Wait until a condition holds on a node: exit 0 when it does, 1 on timeout.",
        discussion: """
            CONDITIONS:
              keep=ID           channel ID is in the keep set and live
              gone=ID           the node sees peer ID as gone
              state=PATH=VALUE  the state value at the dotted PATH equals VALUE,
                                e.g. follows.prices.lastValue=42 (keys may contain dots)

            Watches the node (it pushes every change; no polling). Here --timeout bounds the
            whole wait (default: 30s); the node must answer within 2s of it, or the watch
            starts over. With several --for, all must hold at once. Exits 2 if the node
            answers with an error, or did not answer at all when time runs out.
            """,
        arguments: [ArgumentSpec(name: "node", help: "The node id (from the cluster file or --node).")],
        options: [
            .option(
                "--for", value: "condition", help: "keep=ID, gone=ID or state=PATH=VALUE (repeatable).",
                repeating: true, required: true)
        ]
    )

    static let defaultTimeout: Duration = .seconds(30)

    /// What to wait for.
    enum Condition: Equatable, CustomStringConvertible {
        case keep(String)
        case gone(String)
        case state(path: String, value: String)

        init(_ text: String) throws(UsageError) {
            let usage = UsageError("--for expects keep=ID, gone=ID or state=PATH=VALUE, not '\(text)'")
            guard let equals = text.firstIndex(of: "=") else { throw usage }
            let kind = text[..<equals]
            let rest = String(text[text.index(after: equals)...])
            switch kind {
            case "keep" where !rest.isEmpty: self = .keep(rest)
            case "gone" where !rest.isEmpty: self = .gone(rest)
            case "state":
                guard let split = rest.firstIndex(of: "="), split != rest.startIndex else { throw usage }
                self = .state(path: String(rest[..<split]), value: String(rest[rest.index(after: split)...]))
            default: throw usage
            }
        }

        var description: String {
            switch self {
            case .keep(let id): return "keep=\(id)"
            case .gone(let id): return "gone=\(id)"
            case .state(let path, let value): return "state=\(path)=\(value)"
            }
        }

        var needsKeep: Bool {
            if case .keep = self { return true }
            return false
        }

        var hasPath: Bool {
            if case .state = self { return true }
            return false
        }

        /// Whether the condition holds, and what was seen (for the timeout message).
        func evaluate(_ observed: Observation) -> (holds: Bool, seen: String) {
            switch self {
            case .keep(let id):
                guard let channel = observed.keep?.channels.first(where: { $0.id == id }) else {
                    return (false, "\(id) is not in the keep set")
                }
                return (channel.status == .live, "\(id) is \(channel.status.rawValue)")
            case .gone(let id):
                guard let status = observed.state?.peers[id]?.status else {
                    return (false, "peer \(id) is not known")
                }
                return (status == .gone, "peer \(id) is \(status.rawValue)")
            case .state(let path, let expected):
                guard let tree = observed.stateTree, let value = WaitCommand.lookup(path, in: tree) else {
                    return (false, "\(path) does not exist")
                }
                return (WaitCommand.matches(value, expected), "\(path) is \(value.displayText)")
            }
        }
    }

    /// The documents a condition is judged on: the state as a tree (any feature's, for paths
    /// into it) and as the feeds feature's (for peer conditions; nil on a node of another feature).
    struct Observation {
        var keep: KeepDocument?
        var state: NodeState?
        var stateTree: JSONValue?

        init(keep: KeepDocument?, state: NodeState?, stateTree: JSONValue?) {
            self.keep = keep
            self.state = state
            self.stateTree = stateTree
        }
    }

    var nodeID: String
    var conditions: [Condition] = []

    init(_ arguments: ParsedArguments) throws(UsageError) {
        nodeID = arguments.argument("node") ?? ""
        for text in arguments.all("--for") { conditions.append(try Condition(text)) }
    }

    func validate(_ globals: GlobalOptions) throws(UsageError) {
        if conditions.isEmpty { throw UsageError("Missing expected option '--for <condition>'") }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let node = try context.node(nodeID)
        let clock = ContinuousClock()
        let start = clock.now
        let timeout = context.globals.timeout ?? WaitCommand.defaultTimeout
        let deadline = start.advanced(by: timeout)
        var documents: [WatchedDocument] = []
        if conditions.contains(where: \.needsKeep) { documents.append(.keep) }
        if conditions.contains(where: { !$0.needsKeep }) { documents.append(.state) }
        let watch = NodeWatch(
            client: try context.client(for: node), documents: documents,
            requestTimeout: min(GlobalOptions.defaultTimeout, timeout))
        defer { watch.stop() }
        var lastSeen: [String] = []

        while clock.now < deadline {
            try NodeWatch.waitForAny([watch], until: deadline)
            if let failure = watch.failure, !failure.isUnreachable { throw failure }
            // The documents watched; a node may push others too.
            let keep = documents.contains(.keep) ? watch.keep : nil
            let tree = documents.contains(.state) ? watch.stateTree : nil
            guard watch.failure == nil, documents.contains(.keep) == (keep != nil), documents.contains(.state) == (tree != nil)
            else { continue }
            let observed = Observation(keep: keep, state: watch.state, stateTree: tree)
            lastSeen = conditions.map { $0.evaluate(observed) }.filter { !$0.holds }.map(\.seen)
            guard lastSeen.isEmpty else { continue }
            switch context.globals.output {
            case .json:
                if let keep { context.printJSON(keep) }
                if let tree { context.printJSON(tree) }
            case .table:
                let elapsed = DurationParser.format(clock.now - start)
                context.stdout.escapedLine(
                    "\(node.id): \(conditions.map(\.description).joined(separator: ", ")) "
                        + "hold\(conditions.count == 1 ? "s" : "") (after \(elapsed))")
            }
            return .success
        }
        watch.giveUp()
        if let failure = watch.failure { throw failure }
        throw CommandFailure(
            .failure,
            "\(node.id): \(conditions.map(\.description).joined(separator: ", ")) "
                + "did not hold within \(DurationParser.format(timeout)) (last seen: \(lastSeen.joined(separator: "; ")))")
    }

    /// The value at a dotted `path`. Keys may contain dots (`feeds.eu.prices.value`): the
    /// longest key that matches is tried first. Array elements are addressed by index.
    static func lookup(_ path: String, in value: JSONValue) -> JSONValue? {
        func resolve(_ parts: ArraySlice<Substring>, _ value: JSONValue) -> JSONValue? {
            guard !parts.isEmpty else { return value }
            switch value {
            case .object(let members):
                for length in stride(from: parts.count, through: 1, by: -1) {
                    let key = parts.prefix(length).joined(separator: ".")
                    if let member = members[key], let found = resolve(parts.dropFirst(length), member) {
                        return found
                    }
                }
                return nil
            case .array(let elements):
                guard let index = Int(parts.first!), elements.indices.contains(index) else { return nil }
                return resolve(parts.dropFirst(), elements[index])
            default:
                return nil
            }
        }
        return resolve(ArraySlice(path.split(separator: ".", omittingEmptySubsequences: false)), value)
    }

    /// Strings compare as text; numbers also numerically (`42` matches `42.0`); `null`, `true`, `false` by name.
    static func matches(_ value: JSONValue, _ expected: String) -> Bool {
        if value.displayText == expected { return true }
        if case .number(let text) = value, let number = Double(text), let wanted = Double(expected) { return number == wanted }
        return false
    }
}
