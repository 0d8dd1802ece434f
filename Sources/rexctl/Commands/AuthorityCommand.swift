import RexAuthority

/// `rexctl authority init | sign | verify`: the cluster authority's key and its signed
/// statements, made and checked offline (no node is contacted).
struct AuthorityCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "authority",
        abstract: "Make the cluster authority's key; sign, verify and send statements admitting or revoking keys.",
        discussion: """
            FORMS:
              init --out DIR                  DIR/authority.key (the signing key, mode 0600: keep
                                              it offline) and DIR/authority.pub (every node's)
              sign admit ID --key FILE        member ID has the CURVE key in FILE (its .pub)
              sign operator NAME --key FILE --role ROLE
                                              operator NAME has that key and ROLE (admin, viewer)
              sign revoke KEY|ID              the key (40 Z85 characters, or the key the cluster
                                              file or operators file gives node or operator ID)
                                              is revoked, for good
              verify FILE                     whether the authority signed the statement FILE
              send FILE                       give the statement FILE to every node of the
                                              cluster (the signing key stays offline)

            sign needs --serial N and writes the statement to --out (default, in the current
            directory: admit-ID-N.statement, operator-NAME-N.statement, revoke-ID-N.statement or
            revoke-key-N.statement), signed with --authority. A node keeps, per key, the
            statement with the highest serial, and a revocation for good: give every statement
            a serial higher than the last one signed. verify exits 0 when the authority signed
            the file, 1 when it did not (unsigned, another signer, changed, not a statement).
            send prints each node's answer and "accepted on N of M nodes", and exits 0 when
            every node holds the statement (admit, revoke and operators sign and send at once).
            """,
        arguments: [
            ArgumentSpec(name: "verb", help: "init, sign, verify or send."),
            ArgumentSpec(
                name: "args", help: "sign: admit ID, operator NAME or revoke KEY|ID; verify and send: FILE.", isOptional: true,
                isVariadic: true),
        ],
        options: [
            .option("--out", value: "path", help: "init: the folder for the key pair; sign: the statement file to write."),
            .option(
                "--authority", value: "file",
                help: "The authority's key file: authority.key to sign, authority.pub (or .key) to verify (default: $REXCTL_AUTHORITY)."),
            .option("--key", value: "file", help: "sign admit and operator: the key file (.pub) of the member or operator admitted."),
            .option("--role", value: "role", help: "sign operator: admin or viewer."),
            .option("--serial", value: "n", help: "sign: the statement's serial number, from 1 to 18446744073709551615."),
            .flag("--force", help: "Replace files that exist."),
        ]
    )

    /// The environment variable naming the authority's key file.
    static let environmentVariable = "REXCTL_AUTHORITY"

    enum Operation: Equatable {
        case initialize(folder: String)
        case sign(AuthoritySignRequest)
        case verify(file: String)
        case send(file: String)
    }

    var operation: Operation
    var authorityFile: String?
    var out: String?
    var force: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        let verb = arguments.argument("verb") ?? ""
        let words = arguments.variadic("args")
        authorityFile = arguments.value("--authority")
        out = arguments.value("--out")
        force = arguments.has("--force")
        let signOnly = ["--key", "--role", "--serial"].filter { arguments.value($0) != nil }
        switch verb {
        case "init":
            guard words.isEmpty else { throw UsageError("authority init takes no arguments (got '\(words[0])'); it takes --out DIR") }
            guard let out, !out.isEmpty else { throw UsageError("authority init needs --out DIR, the folder for the key pair") }
            if let option = signOnly.first ?? (authorityFile != nil ? "--authority" : nil) {
                throw UsageError("\(option) does not apply to authority init")
            }
            operation = .initialize(folder: out)
        case "sign":
            operation = .sign(try AuthoritySignRequest(words, arguments))
        case "verify":
            guard words.count == 1 else {
                throw UsageError("authority verify takes one statement FILE" + (words.isEmpty ? "" : " (got \(words.count) arguments)"))
            }
            if let option = signOnly.first ?? (out != nil ? "--out" : nil) {
                throw UsageError("\(option) does not apply to authority verify")
            }
            operation = .verify(file: words[0])
        case "send":
            guard words.count == 1 else {
                throw UsageError("authority send takes one statement FILE" + (words.isEmpty ? "" : " (got \(words.count) arguments)"))
            }
            if let option = signOnly.first ?? (out != nil ? "--out" : nil) ?? (authorityFile != nil ? "--authority" : nil) {
                throw UsageError("\(option) does not apply to authority send (the statement is signed already)")
            }
            operation = .send(file: words[0])
        default:
            throw UsageError("authority expects init, sign, verify or send, not '\(verb)'")
        }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        switch operation {
        case .initialize(let folder):
            return try AuthorityInit.run(folder: Self.resolve(folder, context), force: force, context: context)
        case .sign(let request):
            let key = try authorityKey(context, requiringSecret: true)
            return try request.run(authority: key, out: out, force: force, context: context)
        case .verify(let file):
            let key = try authorityKey(context, requiringSecret: false)
            return try AuthorityVerify.run(file: file, path: Self.resolve(file, context), authority: key.publicKey, context: context)
        case .send(let file):
            let bytes: [UInt8]
            do {
                bytes = try StatementFile.read(path: Self.resolve(file, context))
            } catch {
                throw CommandFailure(.failure, "cannot use the statement file \(file): \(error.message)")
            }
            let signed: SignedStatement
            do {
                signed = try SignedStatement.decode(bytes)
            } catch {
                throw CommandFailure(.failure, "\(file) is not a statement: \(error.message)")
            }
            return try StatementBroadcast.deliver(context) { _, _ in signed }
        }
    }

    /// `path` as given when absolute, else under the command's current directory (the process's,
    /// or the one a test gives).
    static func resolve(_ path: String, _ context: CommandContext) -> String {
        path.hasPrefix("/") ? path : context.environment.currentDirectory + "/" + path
    }

    /// The authority's key file: `--authority`, else `$REXCTL_AUTHORITY`.
    private func authorityKey(_ context: CommandContext, requiringSecret: Bool) throws -> AuthorityKeyFile {
        try Self.authorityKey(authorityFile, context, requiringSecret: requiringSecret)
    }

    /// The authority's key file: `file` (an `--authority`), else `$REXCTL_AUTHORITY`.
    static func authorityKey(_ authorityFile: String?, _ context: CommandContext, requiringSecret: Bool) throws -> AuthorityKeyFile {
        let variable = context.environment.variables[Self.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
        guard let path = authorityFile ?? variable else {
            throw UsageError(
                "pass --authority FILE (or set \(Self.environmentVariable)): the authority's "
                    + (requiringSecret ? "authority.key" : "authority.pub") + ", made by: rexctl authority init --out DIR")
        }
        do {
            return try AuthorityKeyFile.read(path: Self.resolve(path, context), requiringSecret: requiringSecret)
        } catch {
            throw CommandFailure(.failure, "cannot use the authority key file \(path): \(error.message)")
        }
    }
}
