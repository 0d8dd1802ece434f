/// `rexctl wait NODE --for CONDITION`: poll until a condition holds (0) or time runs out (1).
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

            Polls every 100ms. Here --timeout bounds the whole wait (default: 30s); each
            request gets at most 2s of it. With several --for, all must hold at once. Exits 2
            if the node answers with an error, or did not answer at all when time runs out.
            """,
        arguments: [ArgumentSpec(name: "node", help: "The node id (from the cluster file or --node).")],
        options: [
            .option("--for", value: "condition", help: "keep=ID, gone=ID or state=PATH=VALUE (repeatable).",
                    repeating: true, required: true),
        ]
    )

    static let defaultTimeout: Duration = .seconds(30)
    static let pollInterval: Duration = .milliseconds(100)

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

        /// Whether the condition holds, and what was seen (for the timeout message).
        func evaluate(keep: JSONValue?, state: JSONValue?) -> (holds: Bool, seen: String) {
            switch self {
            case .keep(let id):
                guard let channel = keep?["channels"]?.elements?.first(where: { $0["id"]?.stringValue == id }) else {
                    return (false, "\(id) is not in the keep set")
                }
                let status = Formatting.cell(channel["status"])
                return (status == "live", "\(id) is \(status)")
            case .gone(let id):
                guard let status = state?["peers"]?[id]?["status"]?.stringValue else {
                    return (false, "peer \(id) is not known")
                }
                return (status == "gone", "peer \(id) is \(status)")
            case .state(let path, let expected):
                guard let state, let value = WaitCommand.lookup(path, in: state) else {
                    return (false, "\(path) does not exist")
                }
                return (WaitCommand.matches(value, expected), "\(path) is \(value.displayText)")
            }
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
        let client = try context.client(for: node)
        let clock = ContinuousClock()
        let start = clock.now
        let timeout = context.globals.timeout ?? WaitCommand.defaultTimeout
        let deadline = start.advanced(by: timeout)
        let needsKeep = conditions.contains { $0.needsKeep }
        let needsState = conditions.contains { !$0.needsKeep }
        var lastSeen: [String] = []
        var lastError: ControlError?

        while true {
            let requestTimeout = Duration.minimum(GlobalOptions.defaultTimeout,
                                                  max(clock.now.duration(to: deadline), .milliseconds(1)))
            do throws(ControlError) {
                let keep = needsKeep ? try client.request(.keep, timeout: requestTimeout) : nil
                let state = needsState ? try client.request(.state, timeout: requestTimeout) : nil
                lastError = nil
                let outcomes = conditions.map { $0.evaluate(keep: keep, state: state) }
                lastSeen = outcomes.filter { !$0.holds }.map(\.seen)
                if lastSeen.isEmpty {
                    switch context.globals.output {
                    case .json:
                        if let keep { context.printJSON(keep) }
                        if let state { context.printJSON(state) }
                    case .table:
                        let elapsed = DurationParser.format(clock.now - start)
                        context.stdout.escapedLine("\(node.id): \(conditions.map(\.description).joined(separator: ", ")) "
                            + "hold\(conditions.count == 1 ? "s" : "") (after \(elapsed))")
                    }
                    return .success
                }
            } catch {
                if case .unreachable = error.kind {
                    lastError = error
                } else {
                    throw error
                }
            }
            let next = clock.now.advanced(by: WaitCommand.pollInterval)
            if next >= deadline {
                Pause.until(deadline)
                break
            }
            Pause.until(next)
        }
        if let lastError { throw lastError }
        throw CommandFailure(.failure, "\(node.id): \(conditions.map(\.description).joined(separator: ", ")) "
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
                    if let member = members.first(where: { $0.key == key }),
                       let found = resolve(parts.dropFirst(length), member.value) {
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
        if case .number = value, let number = value.doubleValue, let wanted = Double(expected) { return number == wanted }
        return false
    }
}
