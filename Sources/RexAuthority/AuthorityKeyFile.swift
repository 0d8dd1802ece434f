#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The cluster authority's key on disk: `rexctl authority init` writes `authority.key` (the
/// signing key's seed, mode 0600: keep it offline) and `authority.pub` (the public key, given
/// to every node).
///
/// ```
/// # rexctl authority init: the cluster authority's signing key (Ed25519, Z85). Keep it offline.
/// authority-public-key = Yyj3yP)s{70u>x7-:p7gKWIu:XJ&?wH?EPIl&QOg
/// authority-secret-seed = cqafmAg&3^r@fBV@5GqR+y>TBfsN0)qQbZV+jF7D
/// ```
///
/// The names differ from a CURVE key file's (`public-key`, `secret-key`), so neither is taken
/// for the other. A file with the seed is refused when group or others may read or write it, or
/// when another user owns it, and when the seed does not make the public key it states.
public struct AuthorityKeyFile: Sendable {
    /// The authority's public key.
    public var publicKey: AuthorityPublicKey
    /// The signing key; nil in a public key file.
    public var signingKey: AuthoritySigningKey?

    /// The largest key file read.
    public static let maxFileBytes = 4096
    /// What `rexctl authority init` names the secret file in its folder.
    public static let secretFileName = "authority.key"
    /// What `rexctl authority init` names the public file in its folder.
    public static let publicFileName = "authority.pub"

    private static let publicName = "authority-public-key"
    private static let seedName = "authority-secret-seed"

    /// A public key file's contents.
    public init(publicKey: AuthorityPublicKey) {
        self.publicKey = publicKey
        signingKey = nil
    }

    /// A secret key file's contents.
    public init(signingKey: AuthoritySigningKey) {
        self.publicKey = signingKey.publicKey
        self.signingKey = signingKey
    }

    /// Parses a key file's text.
    public static func parse(_ bytes: [UInt8]) throws(AuthorityFileError) -> AuthorityKeyFile {
        guard bytes.count <= maxFileBytes else { throw AuthorityFileError("it is larger than \(maxFileBytes) bytes") }
        var values: [String: String] = [:]
        for line in try AuthorityText.lines(bytes, names: [publicName, seedName], kind: "an authority key file") {
            guard values[line.name] == nil else { throw AuthorityFileError("it has two \(line.name) lines") }
            values[line.name] = line.value
        }
        guard let publicText = values[publicName] else {
            throw AuthorityFileError("it has no \(publicName) line (make an authority with: rexctl authority init --out DIR)")
        }
        guard let publicKey = AuthorityPublicKey(z85: publicText) else {
            throw AuthorityFileError("its \(publicName) is not 40 Z85 characters")
        }
        guard let seedText = values[seedName] else { return AuthorityKeyFile(publicKey: publicKey) }
        guard let seed = Z85.decode(seedText), seed.count == AuthoritySigningKey.seedCount else {
            throw AuthorityFileError("its \(seedName) is not 40 Z85 characters")
        }
        let signingKey: AuthoritySigningKey
        do { signingKey = try AuthoritySigningKey(seed: seed) } catch { throw AuthorityFileError(error.message) }
        guard signingKey.publicKey == publicKey else {
            throw AuthorityFileError("its \(seedName) does not belong to its \(publicName): the file was changed")
        }
        return AuthorityKeyFile(signingKey: signingKey)
    }

    /// Reads the key file at `path`; with `requiringSecret`, it must hold the signing key.
    ///
    /// - Throws: ``AuthorityFileError``, e.g. for a signing key others may read: "it holds the
    ///   authority's signing key but group or others may access it (mode 0644) — run: chmod 600 FILE".
    public static func read(path: String, requiringSecret: Bool) throws(AuthorityFileError) -> AuthorityKeyFile {
        guard let contents = try DiskFile.load(path: path, maxBytes: maxFileBytes) else {
            throw AuthorityFileError("it does not exist")
        }
        let file = try parse(contents.bytes)
        if file.signingKey != nil {
            if contents.mode & 0o077 != 0 {
                throw AuthorityFileError(
                    "it holds the authority's signing key but group or others may access it (mode \(octal(contents.mode)))"
                        + " — run: chmod 600 \(path)")
            }
            let me = UInt32(geteuid())
            if contents.owner != me && me != 0 {
                throw AuthorityFileError(
                    "it holds the authority's signing key but belongs to uid \(contents.owner), not to you (uid \(me))")
            }
        } else if requiringSecret {
            throw AuthorityFileError(
                "it holds the authority's public key only; signing needs \(secretFileName) (made by: rexctl authority init --out DIR)")
        }
        return file
    }

    /// The file's text: a comment line, the public key, and the seed when the file holds the
    /// signing key.
    public func encoded(comment: String) -> String {
        var text = "# \(comment)\n\(Self.publicName) = \(publicKey.z85)\n"
        if let signingKey { text += "\(Self.seedName) = \(Z85.encode(signingKey.exportSeed()) ?? "")\n" }
        return text
    }

    private static func octal(_ mode: UInt32) -> String {
        let text = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }
}
