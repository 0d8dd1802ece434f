import RexAuthority
import RexControl

/// `rexctl operators add | remove | role`: operators' keys and roles changed on every node while
/// it runs.
struct OperatorsCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "operators",
        abstract: "Add an operator, change its role or remove it on every node: statements the authority signs.",
        discussion: """
            FORMS:
              add NAME --key FILE --role ROLE operator NAME has the key in FILE (its .pub) and
                                              ROLE (admin or viewer)
              role NAME ROLE                  operator NAME keeps its key and has ROLE now
              remove NAME|KEY                 the operator's key is revoked, for good (a KEY
                                              starting with '-' after '--': remove -- KEY)

            NAME's key comes from --key FILE, else from operators.json beside the cluster file.
            Each statement is signed with the authority's key (--authority, or
            $REXCTL_AUTHORITY) at one above the highest serial any node holds (or --serial N)
            and given to every node at once. A role takes effect on the operator's next request;
            a removed operator's next request is refused. Prints each node's answer and
            "accepted on N of M nodes"; exits 0 when every node holds the statement, 2 when one
            did not answer or refused it.
            """,
        arguments: [
            ArgumentSpec(name: "verb", help: "add, role or remove."),
            ArgumentSpec(name: "args", help: "add: NAME; role: NAME ROLE; remove: NAME or KEY.", isOptional: true, isVariadic: true),
        ],
        options: [
            .option("--key", value: "file", help: "add (and role, for an operator not in operators.json): the operator's .pub."),
            .option("--role", value: "role", help: "add: admin or viewer."),
        ] + StatementBroadcast.options
    )

    enum Change: Equatable {
        case add(name: String, role: OperatorRole)
        case role(name: String, role: OperatorRole)
        case remove(target: String)
    }

    var change: Change
    var keyFile: String?
    var broadcast: StatementBroadcast

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let verb = arguments.argument("verb") ?? ""
        let words = arguments.variadic("args")
        keyFile = arguments.value("--key")
        let role = arguments.value("--role")
        func parsedRole(_ text: String?) throws(UsageError) -> OperatorRole {
            guard let text, let parsed = OperatorRole(rawValue: text) else {
                throw UsageError("a role is admin or viewer" + (text.map { ", not '\($0)'" } ?? ""))
            }
            return parsed
        }
        func name(_ text: String) throws(UsageError) -> String {
            guard Statement.isValidName(text) else {
                throw UsageError("'\(text.prefix(64))' is not an operator name: 1 to 64 letters, digits, '-', '_', '.' or '@'")
            }
            return text
        }
        switch verb {
        case "add":
            guard words.count == 1 else { throw UsageError("operators add takes one NAME (got \(words.count))") }
            guard keyFile != nil else { throw UsageError("operators add needs --key FILE, the operator's .pub") }
            change = .add(name: try name(words[0]), role: try parsedRole(role))
        case "role":
            guard words.count == 2 else { throw UsageError("operators role takes NAME and ROLE (got \(words.count) arguments)") }
            if role != nil { throw UsageError("operators role takes the role as its second argument, not --role") }
            change = .role(name: try name(words[0]), role: try parsedRole(words[1]))
        case "remove":
            guard words.count == 1 else { throw UsageError("operators remove takes one NAME or KEY (got \(words.count))") }
            if keyFile != nil || role != nil {
                throw UsageError("operators remove names the operator or its key; --key and --role do not apply")
            }
            change = .remove(target: words[0])
        default:
            throw UsageError("operators expects add, role or remove, not '\(verb)'")
        }
        broadcast = try StatementBroadcast(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        switch change {
        case .add(let name, let role):
            return try broadcast.run(.operator(name: name, key: try key(of: name, context), role: role), context)
        case .role(let name, let role):
            return try broadcast.run(.operator(name: name, key: try key(of: name, context), role: role), context)
        case .remove(let target):
            let key = try CurvePublicKey(z85: target) ?? RevocationTarget.operatorKey(named: target, context)
            return try broadcast.run(.revocation(key: key), context)
        }
    }

    /// Operator `name`'s key: `--key FILE`, else its entry in operators.json.
    private func key(of name: String, _ context: CommandContext) throws -> CurvePublicKey {
        if let keyFile { return try AuthoritySignRequest.curveKey(in: AuthorityCommand.resolve(keyFile, context)) }
        return try RevocationTarget.operatorKey(named: name, context)
    }
}
