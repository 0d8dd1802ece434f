/// An authority's signature on one statement: who signed (the signer's public key, so a
/// statement signed by another key is told apart from a damaged one) and the 64-byte Ed25519
/// signature.
public struct AuthoritySignature: Sendable, Hashable {
    /// The size of the signature's bytes.
    public static let byteCount = 64

    /// The key that made the signature (a claim until verified against the authority's key).
    public let signer: AuthorityPublicKey
    /// The 64 bytes of the detached Ed25519 signature.
    public let bytes: [UInt8]

    /// A signature; nil unless `bytes` has ``byteCount`` bytes.
    public init?(signer: AuthorityPublicKey, bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.signer = signer
        self.bytes = bytes
    }
}
