import RexAuthority
import Testing

/// Verification against the authority's key: only the authority's own signature on exactly these
/// bytes passes.
@Suite struct SignedStatementTests {
    let statement = Fixture.member("n4", 4, serial: 7)

    @Test func theAuthoritysSignatureVerifies() throws {
        let signed = Fixture.signed(statement)
        try signed.verify(by: Fixture.authority.publicKey)
        #expect(signed.signature?.signer == Fixture.authority.publicKey)
    }

    @Test func anUnsignedStatementIsRefused() {
        #expect(refusal(SignedStatement(statement, signature: nil)) == .unsigned)
    }

    /// A member signing its own admission: refused as another signer, named.
    @Test func anotherSignerIsRefused() {
        let forged = Fixture.signed(statement, by: Fixture.intruder)
        #expect(refusal(forged) == .otherSigner(Fixture.intruder.publicKey))
    }

    /// The intruder's signature presented as the authority's: the signature does not verify.
    @Test func anotherKeysSignatureUnderTheAuthoritysNameIsRefused() throws {
        let forged = Fixture.signed(statement, by: Fixture.intruder)
        let relabelled = SignedStatement(
            statement, signature: AuthoritySignature(signer: Fixture.authority.publicKey, bytes: try #require(forged.signature).bytes))
        #expect(refusal(relabelled) == .badSignature)
    }

    /// Any bit changed in the statement's bytes or in the signature breaks it.
    @Test func everyChangedBitIsABadSignature() throws {
        let bytes = Fixture.signed(statement).encoded
        let statementCount = statement.encoded.count
        var checked = 0
        for index in Array(0..<statementCount) + Array(statementCount + 32..<bytes.count) {
            var changed = bytes
            changed[index] ^= 0x01
            guard let decoded = try? SignedStatement.decode(changed) else { continue }  // e.g. a name byte made invalid
            #expect(refusal(decoded) == .badSignature, "bit 0 of byte \(index)")
            checked += 1
        }
        #expect(checked > 100)
    }

    /// The signature covers the statement behind a context: the authority's signature on the
    /// bare statement bytes (as another tool signing raw bytes with the same key would make) is
    /// not a signature on the statement.
    @Test func aSignatureWithoutTheContextIsRefused() throws {
        // Fixture.authority is made from seed 1: libsodium's key of that seed signs the bare bytes,
        // and that signature is good for the bare bytes.
        let (raw, publicKey, verifiesBare) = try SodiumBridge.signBare(statement.encoded, seedByte: 1)
        #expect(publicKey == Fixture.authority.publicKey.bytes)
        #expect(verifiesBare)
        let signed = SignedStatement(statement, signature: AuthoritySignature(signer: Fixture.authority.publicKey, bytes: raw))
        #expect(refusal(signed) == .badSignature)
    }

    private func refusal(_ signed: SignedStatement) -> AuthorityRefusal? {
        do {
            try signed.verify(by: Fixture.authority.publicKey)
            return nil
        } catch {
            return error
        }
    }
}
