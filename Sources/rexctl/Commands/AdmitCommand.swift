import RexAuthority
import RexControl

/// `rexctl admit ID --key FILE.pub`: a member's key admitted on every node while it runs.
struct AdmitCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "admit",
        abstract: "Admit a member's key on every node: a statement the cluster authority signs.",
        discussion: """
            Signs "member ID has the CURVE key in FILE" with the authority's key (--authority, or
            $REXCTL_AUTHORITY) at one above the highest serial any node holds (or --serial N),
            and gives it to every node at once; each takes it at once and passes it on to its
            peers. Then start the member, joining through a running one (deploy/cluster.sh add
            does both). Prints each node's answer and "accepted on N of M nodes"; exits 0 when
            every node holds the statement, 2 when one did not answer or refused it.
            """,
        arguments: [ArgumentSpec(name: "id", help: "The member's id (1 to 64 letters, digits, '-', '_', '.', '@').")],
        options: [.option("--key", value: "file", help: "The member's public key file (rexctl keygen's .pub).", required: true)]
            + StatementBroadcast.options
    )

    var id: String
    var keyFile: String
    var broadcast: StatementBroadcast

    init(_ arguments: ParsedArguments) throws(UsageError) {
        id = arguments.argument("id") ?? ""
        guard !id.isEmpty else { throw UsageError("Missing expected argument '<id>'") }
        guard Statement.isValidName(id) else {
            throw UsageError("'\(id.prefix(64))' is not a member id: 1 to 64 letters, digits, '-', '_', '.' or '@'")
        }
        guard let keyFile = arguments.value("--key") else { throw UsageError("admit needs --key FILE, the member's .pub") }
        self.keyFile = keyFile
        broadcast = try StatementBroadcast(arguments)
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        // The key file is read now, relative to the command's current directory.
        let key = try AuthoritySignRequest.curveKey(in: AuthorityCommand.resolve(keyFile, context))
        return try broadcast.run(.member(id: id, key: key), context)
    }
}
