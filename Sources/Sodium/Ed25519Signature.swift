import CSodium

/// A detached Ed25519 signature (64 bytes).
public struct Ed25519Signature: Sendable, Hashable {
    /// The size of every Ed25519 signature.
    public static let byteCount = Int(crypto_sign_ed25519_BYTES)

    /// The 64 raw bytes.
    public let bytes: [UInt8]

    /// A signature from its 64 bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }
}
