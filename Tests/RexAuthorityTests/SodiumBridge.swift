import Sodium

/// Signs with libsodium directly, past the authority's API (which always adds the context).
enum SodiumBridge {
    /// The signature of `message` by the key of seed `seedByte` × 32, that key's public bytes,
    /// and whether the signature verifies for `message` itself.
    static func signBare(_ message: [UInt8], seedByte: UInt8) throws -> (signature: [UInt8], publicKey: [UInt8], verifies: Bool) {
        let key = try Ed25519SigningKey(seed: [UInt8](repeating: seedByte, count: 32))
        let signature = key.sign(message)
        return (signature.bytes, key.publicKey.bytes, key.publicKey.verifies(signature, of: message))
    }
}
