import Sodium

/// The cluster authority's signing key (Ed25519): what `rexctl authority sign` signs statements
/// with. Keep it offline; a node only ever needs the ``publicKey``.
///
/// ```swift
/// let authority = try AuthoritySigningKey.generate()
/// let signed = authority.sign(Statement(serial: 1, claim: .member(id: "n4", key: key)))
/// try signed.verify(by: authority.publicKey)
/// ```
public struct AuthoritySigningKey: Sendable {
    private let key: Ed25519SigningKey

    /// The size of the seed a key file holds.
    public static let seedCount = Ed25519SigningKey.seedCount

    /// A fresh random key (libsodium's random source).
    ///
    /// - Throws: ``AuthorityKeyError`` when libsodium cannot make one.
    public static func generate() throws(AuthorityKeyError) -> AuthoritySigningKey {
        do {
            return AuthoritySigningKey(key: try Ed25519SigningKey.generate())
        } catch {
            throw AuthorityKeyError("cannot make an Ed25519 key: \(error)")
        }
    }

    /// The key of a 32-byte seed (what an authority key file holds).
    ///
    /// - Throws: ``AuthorityKeyError`` for a seed of another size, or when libsodium is unusable.
    public init(seed: [UInt8]) throws(AuthorityKeyError) {
        do {
            key = try Ed25519SigningKey(seed: seed)
        } catch {
            throw AuthorityKeyError("cannot use the seed: \(error)")
        }
    }

    private init(key: Ed25519SigningKey) { self.key = key }

    /// The key nodes verify this key's statements with.
    public var publicKey: AuthorityPublicKey { AuthorityPublicKey(key.publicKey) }

    /// The 32-byte seed, for the key file (mode 0600).
    public func exportSeed() -> [UInt8] { key.exportSeed() }

    /// `statement`, signed: the signature covers ``Statement/signedMessage``, the statement's
    /// canonical bytes behind a context that no other signed message of the project starts with.
    public func sign(_ statement: Statement) -> SignedStatement {
        let signature = key.sign(statement.signedMessage)
        // A libsodium signature always has 64 bytes.
        return SignedStatement(statement, signature: AuthoritySignature(signer: publicKey, bytes: signature.bytes)!)
    }
}
