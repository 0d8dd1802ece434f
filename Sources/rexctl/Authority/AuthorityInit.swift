import Foundation
import RexAuthority
import RexControl

/// `rexctl authority init --out DIR`: a new cluster authority, its signing key private.
enum AuthorityInit {
    static func run(folder: String, force: Bool, context: CommandContext) throws -> ExitCode {
        let key: AuthoritySigningKey
        do {
            key = try AuthoritySigningKey.generate()
        } catch {
            throw CommandFailure(.failure, "cannot make the authority's key: \(error.message)")
        }
        if !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw CommandFailure(.failure, "cannot create the folder \(folder): \(error.localizedDescription)")
            }
        }
        let secretPath = folder + "/" + AuthorityKeyFile.secretFileName
        let publicPath = folder + "/" + AuthorityKeyFile.publicFileName
        let secret = AuthorityKeyFile(signingKey: key).encoded(
            comment: "rexctl authority init: the cluster authority's signing key (Ed25519, Z85). Keep it offline (mode 0600).")
        let pub = AuthorityKeyFile(publicKey: key.publicKey).encoded(
            comment: "rexctl authority init: the cluster authority's public key; every node is given it.")
        do {
            try KeyFile.write(secret, to: secretPath, mode: 0o600, overwrite: force)
        } catch {
            throw CommandFailure(.failure, "cannot write the authority key file \(secretPath): \(error.message)")
        }
        do {
            try KeyFile.write(pub, to: publicPath, mode: 0o644, overwrite: force)
        } catch {
            throw CommandFailure(.failure, "cannot write the authority's public key file \(publicPath): \(error.message)")
        }
        switch context.globals.output {
        case .json:
            context.printJSON([
                "file": .encoding(secretPath), "publicFile": .encoding(publicPath), "publicKey": .encoding(key.publicKey.z85),
            ])
        case .table:
            context.stdout.line(key.publicKey.z85)
        }
        return .success
    }
}
