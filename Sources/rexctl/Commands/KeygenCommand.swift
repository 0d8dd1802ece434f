import Foundation
import RexControl
import ZMQ

/// `rexctl keygen FILE`: a new CURVE key pair for a node or an operator.
struct KeygenCommand: RexCtlCommand {
    static let spec = CommandSpec(
        name: "keygen",
        abstract: "Make a CURVE key pair: FILE (secret, mode 0600) and its public half beside it.",
        discussion: """
            Writes FILE with the public and the secret key (mode 0600; rexnode and rexctl refuse
            a secret key that group or others may read) and FILE's .pub (n1.key -> n1.pub) with
            the public key alone, then prints the public key. Put a node's public key in its
            cluster-file entry ("key"), an operator's in the operators file with a role.
            An existing file is kept unless --force is given.
            """,
        arguments: [ArgumentSpec(name: "file", help: "Where to write the key pair, e.g. .deploy/keys/operator.key.")],
        options: [.flag("--force", help: "Replace FILE (and its .pub) if they exist.")]
    )

    var file: String
    var force: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = arguments.argument("file") ?? ""
        force = arguments.has("--force")
    }

    func validate(_ globals: GlobalOptions) throws(UsageError) {
        if file.isEmpty { throw UsageError("Missing expected argument '<file>'") }
        if file.hasSuffix("/") { throw UsageError("keygen takes a file name, not a folder (got '\(file)')") }
    }

    func run(_ context: CommandContext) throws -> ExitCode {
        let pair: ZMQCurveKeyPair
        do {
            pair = try ZMQCurveKeyPair.generate()
        } catch {
            throw CommandFailure(.failure, "cannot make a CURVE key pair: \(error) — is libzmq built with libsodium (zmq_has(\"curve\"))?")
        }
        let folder = (file as NSString).deletingLastPathComponent
        if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw CommandFailure(.failure, "cannot create the folder \(folder): \(error.localizedDescription)")
            }
        }
        let publicPath = KeyFile.publicPath(for: file)
        let secret = KeyFile(publicKey: pair.publicKey.z85, secretKey: pair.secretKey.z85)
        let pub = KeyFile(publicKey: pair.publicKey.z85, secretKey: nil)
        do {
            try KeyFile.write(
                secret.encoded(comment: "rexctl keygen: a CURVE key pair (Z85). Keep this file private (mode 0600)."),
                to: file, mode: 0o600, overwrite: force)
        } catch {
            throw CommandFailure(.failure, "cannot write the key file \(file): \(error.message)")
        }
        do {
            try KeyFile.write(
                pub.encoded(comment: "rexctl keygen: the public half of \((file as NSString).lastPathComponent)."),
                to: publicPath, mode: 0o644, overwrite: force)
        } catch {
            throw CommandFailure(.failure, "cannot write the public key file \(publicPath): \(error.message)")
        }
        switch context.globals.output {
        case .json:
            let document: OrderedJSON = [
                "file": .encoding(file), "publicFile": .encoding(publicPath), "publicKey": .encoding(pair.publicKey.z85),
            ]
            context.printJSON(document)
        case .table:
            context.stdout.line(pair.publicKey.z85)
        }
        return .success
    }
}
