import RexAuthority
import RexControl

/// `rexctl revoke KEY|ID`: a member's or an operator's key revoked on every node, for good.
struct RevokeCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "revoke",
        abstract: "Revoke a key on every node, for good: a statement the cluster authority signs.",
        discussion: """
            Signs "key K is revoked" with the authority's key (--authority, or $REXCTL_AUTHORITY)
            at one above the highest serial any node holds (or --serial N), and gives it to
            every node at once. Each node refuses the key from then on: a member holding it is
            declared left and its connections are dropped, an operator holding it is refused its
            next request. Nothing admits a revoked key again. KEY is the key's 40 Z85 characters
            (after '--' when it starts with '-': rexctl revoke -- KEY); ID names the node
            (cluster file) or operator (operators.json beside it) whose key it is. Prints each node's answer and "accepted on N of M nodes"; exits 0 when every
            node holds the statement, 2 when one did not answer or refused it.
            """,
        arguments: [ArgumentSpec(name: "key-or-id", help: "The key (40 Z85 characters), or a node's or operator's id.")],
        options: StatementBroadcast.options
    )

    var target: String
    var broadcast: StatementBroadcast

    init(_ arguments: ParsedArguments) throws(UsageError) {
        target = arguments.argument("key-or-id") ?? ""
        guard !target.isEmpty else { throw UsageError("Missing expected argument '<key-or-id>'") }
        broadcast = try StatementBroadcast(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let key = try CurvePublicKey(z85: target) ?? RevocationTarget.key(of: target, context)
        return try broadcast.run(.revocation(key: key), context)
    }
}
