import Sodium

/// The cluster authority's public key (Ed25519, 32 bytes): every node is given it and accepts a
/// statement only when this key's signature on it verifies.
///
/// Its text is Z85 (40 characters), like the CURVE keys, in `authority.pub`.
public struct AuthorityPublicKey: Sendable, Hashable, CustomStringConvertible {
    let key: Ed25519PublicKey

    init(_ key: Ed25519PublicKey) { self.key = key }

    /// A key from its 32 bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard let key = Ed25519PublicKey(bytes: bytes) else { return nil }
        self.key = key
    }

    /// A key from its 40-character Z85 text; nil when it is not one.
    public init?(z85 text: String) {
        guard text.utf8.count == 40, let bytes = Z85.decode(text) else { return nil }
        self.init(bytes: bytes)
    }

    /// The 32 raw bytes.
    public var bytes: [UInt8] { key.bytes }

    /// The 40-character Z85 text.
    public var z85: String { Z85.encode(key.bytes) ?? "" }

    /// The first 8 characters and an ellipsis.
    public var short: String { String(z85.prefix(8)) + "…" }

    public var description: String { z85 }

    /// Whether `signature` is this key's signature of `message`.
    func verifies(_ signature: AuthoritySignature, of message: [UInt8]) -> Bool {
        guard let signature = Ed25519Signature(bytes: signature.bytes) else { return false }
        return key.verifies(signature, of: message)
    }
}
