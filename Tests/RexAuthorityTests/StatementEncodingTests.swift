import RexAuthority
import RexControl
import SharedTestSupport
import Testing

/// A statement's bytes: one canonical form per statement, and every other input refused with
/// its reason, never a trap.
@Suite struct StatementEncodingTests {
    static let examples: [Statement] = [
        Fixture.member("n4", 4, serial: 7),
        Fixture.operator("alice", 5, .admin, serial: 8),
        Fixture.operator("grafana@ops", 6, .viewer, serial: UInt64.max),
        Fixture.revocation(4, serial: 9),
        Fixture.member(String(repeating: "m", count: 64), 7, serial: 1),
    ]

    /// The layout the format's doc states, byte for byte.
    @Test func aMemberStatementHasTheDocumentedBytes() {
        let bytes = Fixture.member("n4", 4, serial: 7).encoded
        let expected: [UInt8] = [1, 1, 0, 0, 0, 0, 0, 0, 0, 7] + [UInt8](repeating: 4, count: 32) + [2] + Array("n4".utf8)
        #expect(bytes == expected)
        let operatorBytes = Fixture.operator("al", 5, .viewer, serial: 0x0102).encoded
        #expect(operatorBytes == [1, 2, 0, 0, 0, 0, 0, 0, 1, 2] + [UInt8](repeating: 5, count: 32) + [2, 2] + Array("al".utf8))
        #expect(Fixture.revocation(3, serial: 1).encoded == [1, 3, 0, 0, 0, 0, 0, 0, 0, 1] + [UInt8](repeating: 3, count: 32))
    }

    @Test(arguments: examples)
    func signedAndUnsignedStatementsRoundTrip(_ statement: Statement) throws {
        let signed = Fixture.signed(statement)
        let decoded = try SignedStatement.decode(signed.encoded)
        #expect(decoded == signed)
        #expect(decoded.encoded == signed.encoded)
        let unsigned = try SignedStatement.decode(statement.encoded)
        #expect(unsigned.statement == statement)
        #expect(unsigned.signature == nil)
    }

    /// Every prefix of a signed statement is refused: inside the statement as truncated, and
    /// between the statement and the end of the signature as trailing bytes (not a signature).
    @Test(arguments: examples)
    func everyTruncationIsRefused(_ statement: Statement) {
        let bytes = Fixture.signed(statement).encoded
        let statementCount = statement.encoded.count
        for count in 0..<bytes.count where count != statementCount {
            let expected: StatementFormatError.Code = count < statementCount ? .truncated : .trailingBytes
            #expect(code(Array(bytes.prefix(count))) == expected, "prefix of \(count) bytes")
        }
    }

    @Test func oversizedAndTrailingInputIsRefused() {
        let signed = Fixture.signed(Fixture.member("n4", 4, serial: 7)).encoded
        #expect(code(signed + [0]) == .trailingBytes)
        #expect(code([UInt8](repeating: 1, count: SignedStatement.maxEncodedBytes + 1)) == .oversized)
        #expect(code([UInt8](repeating: 1, count: 1 << 20)) == .oversized)
    }

    @Test func unknownFieldsAreRefusedByName() {
        let member = Fixture.member("n4", 4, serial: 7).encoded
        #expect(code(replacing(member, at: 0, with: 2)) == .unknownVersion)
        #expect(code(replacing(member, at: 1, with: 4)) == .unknownKind)
        #expect(code(replacing(member, at: 1, with: 0)) == .unknownKind)
        #expect(
            code(Fixture.member("n4", 4, serial: 7).encoded.enumerated().map { $0.offset >= 2 && $0.offset < 10 ? 0 : $0.element })
                == .invalidSerial)
        let operatorBytes = Fixture.operator("al", 5, .admin, serial: 1).encoded
        #expect(code(replacing(operatorBytes, at: 42, with: 3)) == .unknownRole)
        #expect(code(replacing(operatorBytes, at: 42, with: 0)) == .unknownRole)
        // The id's length byte: 0, 65, and bytes outside the allowed characters.
        #expect(code(Array(member.prefix(42)) + [0]) == .invalidName)
        #expect(code(Array(member.prefix(42)) + [65] + [UInt8](repeating: 0x61, count: 65)) == .invalidName)
        #expect(code(Array(member.prefix(42)) + [2] + Array("n ".utf8)) == .invalidName)
        #expect(code(Array(member.prefix(42)) + [2] + [0xC3, 0xA9]) == .invalidName)
        #expect(code(Array(member.prefix(42)) + [2] + [0x1B, 0x5B]) == .invalidName)
    }

    @Test func statementsAreCheckedWhenMade() {
        #expect(throws: StatementFormatError.self) { try Statement(serial: 0, claim: .revocation(key: Fixture.curveKey(1))) }
        #expect(throws: StatementFormatError.self) { try Statement(serial: 1, claim: .member(id: "", key: Fixture.curveKey(1))) }
        #expect(throws: StatementFormatError.self) {
            try Statement(serial: 1, claim: .operator(name: "bob\n", key: Fixture.curveKey(1), role: .admin))
        }
    }

    /// Random and mutated input: decoding never traps, and whatever decodes encodes back to
    /// exactly the same bytes (one encoding per statement).
    @Test func arbitraryInputDecodesOnlyToItsCanonicalForm() {
        var generator = SeededGenerator(state: 2024)
        let seeds = Self.examples.map { Fixture.signed($0).encoded }
        var decodedCount = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = seeds[generator.next(seeds.count)]
                for _ in 0...generator.next(3) {
                    bytes[generator.next(bytes.count)] = UInt8(truncatingIfNeeded: generator.next())
                }
            } else {
                bytes = (0..<generator.next(SignedStatement.maxEncodedBytes + 8)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            }
            if let decoded = try? SignedStatement.decode(bytes) {
                decodedCount += 1
                #expect(decoded.encoded == bytes)
            }
        }
        #expect(decodedCount > 1000, "the mutations should leave many statements readable")
    }

    private func code(_ bytes: [UInt8]) -> StatementFormatError.Code? {
        do {
            _ = try SignedStatement.decode(bytes)
            return nil
        } catch {
            return error.code
        }
    }

    private func replacing(_ bytes: [UInt8], at index: Int, with value: UInt8) -> [UInt8] {
        var copy = bytes
        copy[index] = value
        return copy
    }
}
