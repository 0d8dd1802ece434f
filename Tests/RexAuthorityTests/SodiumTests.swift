import Sodium
import Testing

/// The Ed25519 wrapper: libsodium's signatures, checked against RFC 8032's own test vectors,
/// and every way a signature must fail to verify.
@Suite struct SodiumTests {
    /// RFC 8032, section 7.1, tests 1 and 2: the seed gives the stated public key, and signing
    /// gives the stated signature, byte for byte.
    @Test(arguments: [
        (
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        ),
        (
            "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
        ),
    ])
    func rfc8032Vectors(seed: String, publicKey: String, message: String, signature: String) throws {
        let key = try Ed25519SigningKey(seed: [UInt8](hex: seed))
        #expect(key.publicKey.bytes == [UInt8](hex: publicKey))
        let signed = key.sign([UInt8](hex: message))
        #expect(signed.bytes == [UInt8](hex: signature))
        #expect(key.publicKey.verifies(signed, of: [UInt8](hex: message)))
        #expect(key.exportSeed() == [UInt8](hex: seed))
    }

    @Test func aChangedMessageSignatureOrKeyDoesNotVerify() throws {
        let key = try Ed25519SigningKey.generate()
        let other = try Ed25519SigningKey.generate()
        let message = Array("member n4 has key K".utf8)
        let signature = key.sign(message)
        #expect(key.publicKey.verifies(signature, of: message))

        var changedMessage = message
        changedMessage[0] ^= 1
        #expect(!key.publicKey.verifies(signature, of: changedMessage))
        for index in [0, 31, 32, 63] {
            var bytes = signature.bytes
            bytes[index] ^= 0x80
            #expect(!key.publicKey.verifies(Ed25519Signature(bytes: bytes)!, of: message), "bit flipped in byte \(index)")
        }
        #expect(!other.publicKey.verifies(signature, of: message))
        #expect(!key.publicKey.verifies(Ed25519Signature(bytes: [UInt8](repeating: 0, count: 64))!, of: message))
    }

    @Test func freshKeysDifferAndSeedsRebuildThem() throws {
        let first = try Ed25519SigningKey.generate()
        let second = try Ed25519SigningKey.generate()
        #expect(first.publicKey != second.publicKey)
        let rebuilt = try Ed25519SigningKey(seed: first.exportSeed())
        #expect(rebuilt.publicKey == first.publicKey)
        #expect(rebuilt.sign([1, 2, 3]) == first.sign([1, 2, 3]))
    }

    @Test func wrongSizesAreRefusedNotTrapped() {
        #expect(throws: SodiumError.self) { try Ed25519SigningKey(seed: [UInt8](repeating: 0, count: 31)) }
        #expect(throws: SodiumError.self) { try Ed25519SigningKey(seed: []) }
        #expect(Ed25519PublicKey(bytes: [UInt8](repeating: 0, count: 33)) == nil)
        #expect(Ed25519Signature(bytes: [UInt8](repeating: 0, count: 63)) == nil)
    }
}
