import CSodium

/// An Ed25519 signing key: makes detached signatures its ``publicKey`` verifies.
///
/// The secret (libsodium's 64-byte form: seed and public key) lives in memory from
/// `sodium_malloc` — guard pages around it, kept out of swap where the system allows, read-only
/// after the key is made — and is wiped when the key is released (`sodium_free`). Its text form
/// on disk is the 32-byte seed (``exportSeed()``), from which ``init(seed:)`` rebuilds the key.
///
/// ```swift
/// let key = try Ed25519SigningKey.generate()
/// let signature = key.sign(message)
/// key.publicKey.verifies(signature, of: message)   // true
/// ```
public final class Ed25519SigningKey: @unchecked Sendable {
    // @unchecked Sendable: `secret` is written once, in init, then made read-only
    // (sodium_mprotect_readonly) and only read (signing, exporting) until deinit frees it, and
    // libsodium's signing reads the key without mutating any shared state.

    /// The size of a seed.
    public static let seedCount = Int(crypto_sign_ed25519_SEEDBYTES)
    private static let secretCount = Int(crypto_sign_ed25519_SECRETKEYBYTES)

    /// The key that verifies this key's signatures.
    public let publicKey: Ed25519PublicKey
    private let secret: UnsafeMutableRawPointer

    /// A fresh random key (`crypto_sign_ed25519_keypair`, libsodium's random source).
    public static func generate() throws(SodiumError) -> Ed25519SigningKey {
        try Ed25519SigningKey(function: "crypto_sign_ed25519_keypair") { publicKey, secret in
            crypto_sign_ed25519_keypair(publicKey, secret)
        }
    }

    /// The key of a 32-byte `seed` (`crypto_sign_ed25519_seed_keypair`): the same seed always
    /// gives the same key.
    ///
    /// - Throws: ``SodiumError`` for a seed of another size, or when libsodium is unusable.
    public convenience init(seed: [UInt8]) throws(SodiumError) {
        guard seed.count == Self.seedCount else {
            throw SodiumError(
                function: "crypto_sign_ed25519_seed_keypair", message: "a seed has \(Self.seedCount) bytes, not \(seed.count)")
        }
        try self.init(function: "crypto_sign_ed25519_seed_keypair") { publicKey, secret in
            seed.withUnsafeBufferPointer { crypto_sign_ed25519_seed_keypair(publicKey, secret, $0.baseAddress!) }
        }
    }

    private init(
        function: String, _ make: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>) -> Int32
    ) throws(SodiumError) {
        try SodiumLibrary.ensureReady(function)
        guard let memory = sodium_malloc(Self.secretCount) else {
            throw SodiumError(function: "sodium_malloc", message: "no memory for a secret key")
        }
        var publicBytes = [UInt8](repeating: 0, count: Ed25519PublicKey.byteCount)
        let status = publicBytes.withUnsafeMutableBufferPointer { publicKey in
            make(publicKey.baseAddress!, memory.assumingMemoryBound(to: UInt8.self))
        }
        guard status == 0, let publicKey = Ed25519PublicKey(bytes: publicBytes) else {
            sodium_free(memory)
            throw SodiumError(function: function, message: "libsodium could not make the key pair (status \(status))")
        }
        sodium_mprotect_readonly(memory)
        self.secret = memory
        self.publicKey = publicKey
    }

    deinit { sodium_free(secret) }

    /// The detached signature of `message` (`crypto_sign_ed25519_detached`; deterministic: the
    /// same key and message always give the same signature).
    public func sign(_ message: [UInt8]) -> Ed25519Signature {
        var signature = [UInt8](repeating: 0, count: Ed25519Signature.byteCount)
        message.withUnsafeBufferPointer { messageBytes in
            signature.withUnsafeMutableBufferPointer { signatureBytes in
                _ = crypto_sign_ed25519_detached(
                    signatureBytes.baseAddress!, nil, messageBytes.baseAddress, UInt64(messageBytes.count),
                    secret.assumingMemoryBound(to: UInt8.self))
            }
        }
        // The buffer has exactly byteCount bytes, so the signature always builds.
        return Ed25519Signature(bytes: signature)!
    }

    /// The 32-byte seed this key is made from, for writing the key to a private file (mode 0600).
    /// The caller holds a copy of the secret from here on: write it and let it go.
    public func exportSeed() -> [UInt8] {
        var seed = [UInt8](repeating: 0, count: Self.seedCount)
        seed.withUnsafeMutableBufferPointer { seedBytes in
            _ = crypto_sign_ed25519_sk_to_seed(seedBytes.baseAddress!, secret.assumingMemoryBound(to: UInt8.self))
        }
        return seed
    }
}
