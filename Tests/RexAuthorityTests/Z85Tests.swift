import RexAuthority
import SharedTestSupport
import Testing
import ZMQ

/// Key text: the authority's Z85 reads and writes what libzmq does, and refuses a second way of
/// writing a key.
@Suite struct Z85Tests {
    @Test func curveKeysReadAndWriteAsLibzmqDoes() throws {
        var generator = SeededGenerator(state: 31)
        for _ in 0..<200 {
            let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = try #require(ZMQZ85.encode(bytes))
            let key = try #require(CurvePublicKey(z85: text))
            #expect(key.bytes == bytes)
            #expect(key.z85 == text)
        }
        let pair = try ZMQCurveKeyPair.generate()
        #expect(CurvePublicKey(z85: pair.publicKey.z85)?.bytes == pair.publicKey.bytes)
    }

    /// `#####` is 85^5 - 1, more than 32 bits: libzmq would wrap it into some key; here it is
    /// not a key at all, so a revocation cannot be dodged by writing the key another way.
    @Test func nonCanonicalAndForeignTextIsRefused() {
        let valid = String(repeating: "0", count: 40)
        #expect(CurvePublicKey(z85: valid) != nil)
        #expect(CurvePublicKey(z85: "#####" + String(repeating: "0", count: 35)) == nil)
        #expect(CurvePublicKey(z85: String(repeating: "0", count: 39)) == nil)
        #expect(CurvePublicKey(z85: String(repeating: "0", count: 45)) == nil)
        #expect(CurvePublicKey(z85: "\"" + String(repeating: "0", count: 39)) == nil)
        #expect(CurvePublicKey(z85: "é" + String(repeating: "0", count: 38)) == nil)
        #expect(AuthorityPublicKey(z85: "~" + String(repeating: "0", count: 39)) == nil)
    }

    /// The largest group that fits 32 bits (`%nSc0` is 0xFFFFFFFF) reads; one more does not.
    @Test func theLargestGroupReadsAndTheNextDoesNot() throws {
        let ones = try #require(CurvePublicKey(z85: String(repeating: "%nSc0", count: 8)))
        #expect(ones.bytes == [UInt8](repeating: 0xFF, count: 32))
        #expect(CurvePublicKey(z85: "%nSc1" + String(repeating: "0", count: 35)) == nil)
    }
}
