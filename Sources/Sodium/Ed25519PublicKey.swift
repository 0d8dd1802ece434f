import CSodium

/// An Ed25519 public key (32 bytes): checks signatures made by its signing key.
public struct Ed25519PublicKey: Sendable, Hashable {
    /// The size of every Ed25519 public key.
    public static let byteCount = Int(crypto_sign_ed25519_PUBLICKEYBYTES)

    /// The 32 raw bytes.
    public let bytes: [UInt8]

    /// A key from its 32 bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// Whether `signature` is this key's signature of exactly `message`
    /// (`crypto_sign_ed25519_verify_detached`).
    ///
    /// libsodium refuses non-canonical signatures and small-order keys, so a signature cannot be
    /// altered into another valid one. False also when libsodium could not initialise.
    public func verifies(_ signature: Ed25519Signature, of message: [UInt8]) -> Bool {
        guard SodiumLibrary.isReady else { return false }
        // Key and signature have their fixed non-zero sizes (checked at init), so their buffers
        // have a base address.
        return signature.bytes.withUnsafeBufferPointer { signatureBytes in
            message.withUnsafeBufferPointer { messageBytes in
                bytes.withUnsafeBufferPointer { keyBytes in
                    crypto_sign_ed25519_verify_detached(
                        signatureBytes.baseAddress!, messageBytes.baseAddress, UInt64(messageBytes.count), keyBytes.baseAddress!) == 0
                }
            }
        }
    }
}
