import Foundation
import RexAuthority
import RexControl

/// `rexctl authority sign admit|operator|revoke …`: what to state, read from the command line,
/// and its signing into a statement file.
struct AuthoritySignRequest: Equatable {
    enum Subject: Equatable {
        case admit(id: String, keyFile: String)
        case `operator`(name: String, keyFile: String, role: OperatorRole)
        /// A key's Z85 text, or the id of a node or operator whose key the files give.
        case revoke(target: String)
    }

    var subject: Subject
    var serial: UInt64

    /// Reads `sign`'s words (`admit ID`, `operator NAME`, `revoke KEY|ID`) and options.
    init(_ words: [String], _ arguments: ParsedArguments) throws(UsageError) {
        guard let kind = words.first else { throw UsageError("authority sign expects admit ID, operator NAME or revoke KEY|ID") }
        guard words.count == 2 else {
            throw UsageError("authority sign \(kind) takes one \(kind == "revoke" ? "KEY or ID" : "name") (got \(words.count - 1))")
        }
        let name = words[1]
        guard let serialText = arguments.value("--serial") else {
            throw UsageError("authority sign needs --serial N, higher than the serial of any earlier statement about this key")
        }
        serial = try Self.serial(serialText)
        let keyFile = arguments.value("--key")
        let role = arguments.value("--role")
        switch kind {
        case "admit", "operator":
            guard Statement.isValidName(name) else {
                throw UsageError(
                    "'\(name)' is not a \(kind == "admit" ? "member id" : "name"): 1 to 64 letters, digits, '-', '_', '.' or '@'")
            }
            guard let keyFile else {
                throw UsageError("authority sign \(kind) needs --key FILE, the \(kind == "admit" ? "member" : "operator")'s .pub")
            }
            if kind == "admit" {
                if role != nil { throw UsageError("--role applies to authority sign operator only") }
                subject = .admit(id: name, keyFile: keyFile)
            } else {
                guard let role, let parsed = OperatorRole(rawValue: role) else {
                    throw UsageError("authority sign operator needs --role admin or --role viewer" + (role.map { ", not '\($0)'" } ?? ""))
                }
                subject = .operator(name: name, keyFile: keyFile, role: parsed)
            }
        case "revoke":
            if keyFile != nil || role != nil {
                throw UsageError("authority sign revoke names the key itself (KEY or ID); --key and --role do not apply")
            }
            subject = .revoke(target: name)
        default:
            throw UsageError("authority sign expects admit, operator or revoke, not '\(kind)'")
        }
    }

    /// A serial: decimal digits only, 1 to UInt64.max.
    static func serial(_ text: String) throws(UsageError) -> UInt64 {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let value = UInt64(text), value > 0
        else {
            throw UsageError("--serial expects a whole number from 1 to \(UInt64.max), not '\(text)'")
        }
        return value
    }

    /// Signs the statement with `authority` and writes it to `out` (or the default name).
    func run(authority: AuthorityKeyFile, out: String?, force: Bool, context: CommandContext) throws -> ExitCode {
        guard let signingKey = authority.signingKey else {
            throw CommandFailure(.failure, "the authority key file holds no signing key")
        }
        let (claim, label) = try resolve(context)
        let statement: Statement
        do {
            statement = try Statement(serial: serial, claim: claim)
        } catch {
            throw UsageError(error.message)
        }
        let signed = signingKey.sign(statement)
        let shown = out ?? "\(label)-\(serial).statement"
        let path = AuthorityCommand.resolve(shown, context)
        do {
            try KeyFile.write(
                StatementFile.encoded(signed, comment: "rexctl authority sign: \(signed.description)"), to: path, mode: 0o644,
                overwrite: force)
        } catch {
            throw CommandFailure(.failure, "cannot write the statement file \(shown): \(error.message)")
        }
        switch context.globals.output {
        case .json:
            context.printJSON(["file": .encoding(shown), "statement": .object(StatementDocument.make(signed))])
        case .table:
            context.stdout.line("wrote \(shown): \(signed.description)")
        }
        return .success
    }

    /// The claim, and the default file name's stem.
    private func resolve(_ context: CommandContext) throws -> (Statement.Claim, String) {
        switch subject {
        case .admit(let id, let keyFile):
            return (.member(id: id, key: try Self.curveKey(in: AuthorityCommand.resolve(keyFile, context))), "admit-\(id)")
        case .operator(let name, let keyFile, let role):
            let key = try Self.curveKey(in: AuthorityCommand.resolve(keyFile, context))
            return (.operator(name: name, key: key, role: role), "operator-\(name)")
        case .revoke(let target):
            if let key = CurvePublicKey(z85: target) { return (.revocation(key: key), "revoke-key") }
            return (.revocation(key: try RevocationTarget.key(of: target, context)), "revoke-\(target)")
        }
    }

    /// The public key in a key file (`rexctl keygen`'s .pub, or its secret file).
    static func curveKey(in path: String) throws(CommandFailure) -> CurvePublicKey {
        let file: KeyFile
        do {
            file = try KeyFile.read(path: path, requiringSecret: false)
        } catch {
            throw CommandFailure(.failure, "cannot use the key file \(path): \(error.message)")
        }
        guard let key = CurvePublicKey(z85: file.publicKey) else {
            throw CommandFailure(
                .failure, "the key file \(path) holds a public key that is not canonical Z85 — make a new one with: rexctl keygen FILE")
        }
        return key
    }
}
