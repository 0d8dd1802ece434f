import RexAuthority
import RexControl
import SharedTestSupport
import Testing

/// The ledger's rule: a statement is accepted only when it is the authority's and newer than
/// what is held about its key; every refusal is counted under its reason.
@Suite struct AuthorityLedgerTests {
    var ledger = AuthorityLedger(authority: Fixture.authority.publicKey)

    @Test mutating func anAdmissionIsAcceptedAndHeld() throws {
        let signed = Fixture.signed(Fixture.member("n4", 4, serial: 1))
        let change = try #require(ledger.receive(signed.encoded).change)
        #expect(change.statement == signed)
        #expect(change.replaced == nil)
        #expect(ledger.statement(about: Fixture.curveKey(4)) == signed)
        #expect(ledger.counters.accepted == 1)
        #expect(ledger.counters.refused == 0)
    }

    @Test mutating func everyRefusalIsCountedUnderItsReason() {
        let admit = Fixture.member("n4", 4, serial: 5)
        #expect(ledger.receive(Fixture.signed(admit)).change != nil)

        #expect(ledger.receive([1, 1, 0]).refusal?.reason == .malformed)
        #expect(ledger.receive(admit.encoded).refusal == .unsigned)
        #expect(
            ledger.receive(Fixture.signed(Fixture.member("n5", 5, serial: 1), by: Fixture.intruder)).refusal
                == .otherSigner(Fixture.intruder.publicKey))
        var tampered = Fixture.signed(Fixture.member("n5", 5, serial: 1)).encoded
        tampered[9] ^= 0x02  // serial 1 → 3: the signature no longer covers it
        #expect(ledger.receive(tampered).refusal == .badSignature)
        #expect(ledger.receive(Fixture.signed(admit)).refusal == .replayed(serial: 5))
        #expect(ledger.receive(Fixture.signed(Fixture.member("n4", 4, serial: 4))).refusal == .stale(offered: 4, held: 5))

        let expected: [AuthorityRefusal.Reason: Int] = [
            .malformed: 1, .unsigned: 1, .otherSigner: 1, .badSignature: 1, .replayed: 1, .stale: 1,
        ]
        for reason in AuthorityRefusal.Reason.allCases {
            #expect(ledger.counters[reason] == expected[reason, default: 0], "\(reason)")
        }
        #expect(ledger.counters.accepted == 1)
        #expect(ledger.counters.refused == 6)
        // Nothing refused changed what is held.
        #expect(ledger.statements == [Fixture.signed(admit)])
    }

    @Test mutating func aHigherSerialReplacesAndReportsWhatItReplaced() throws {
        _ = ledger.receive(Fixture.signed(Fixture.operator("alice", 5, .viewer, serial: 3)))
        let promoted = Fixture.operator("alice", 5, .admin, serial: 4)
        let change = try #require(ledger.receive(Fixture.signed(promoted)).change)
        #expect(change.replaced == Fixture.operator("alice", 5, .viewer, serial: 3))
        #expect(ledger.policy().operator(of: Fixture.curveKey(5))?.role == .admin)
        #expect(ledger.count == 1)
    }

    /// A revocation is final: a later admission of the key, even with a higher serial, is refused.
    @Test mutating func aRevokedKeyCannotComeBack() {
        _ = ledger.receive(Fixture.signed(Fixture.member("n4", 4, serial: 1)))
        #expect(ledger.receive(Fixture.signed(Fixture.revocation(4, serial: 2))).change != nil)
        #expect(ledger.receive(Fixture.signed(Fixture.member("n4", 4, serial: 3))).refusal == .revokedKey(Fixture.curveKey(4)))
        #expect(ledger.receive(Fixture.signed(Fixture.operator("n4", 4, .admin, serial: 9))).refusal == .revokedKey(Fixture.curveKey(4)))
        #expect(ledger.receive(Fixture.signed(Fixture.revocation(4, serial: 7))).refusal == .revokedKey(Fixture.curveKey(4)))
        #expect(ledger.receive(Fixture.signed(Fixture.revocation(4, serial: 2))).refusal == .replayed(serial: 2))
        #expect(ledger.counters.revokedKey == 3)
        #expect(ledger.policy().isRevoked(Fixture.curveKey(4)))
        #expect(ledger.policy().memberID(of: Fixture.curveKey(4)) == nil)
    }

    /// A revocation replaces an admission whatever the serials: a node that got the admission
    /// first ends where one that got the revocation first does.
    @Test mutating func aRevocationWinsOverAHigherAdmission() {
        _ = ledger.receive(Fixture.signed(Fixture.member("n4", 4, serial: 9)))
        #expect(ledger.receive(Fixture.signed(Fixture.revocation(4, serial: 2))).change?.replaced == Fixture.member("n4", 4, serial: 9))
        #expect(ledger.policy().isRevoked(Fixture.curveKey(4)))
    }

    /// Two statements about one key with one serial: the one whose bytes sort last is kept, in
    /// either order.
    @Test func equalSerialsKeepTheSameStatementInEitherOrder() {
        let first = Fixture.signed(Fixture.member("a", 4, serial: 3))
        let second = Fixture.signed(Fixture.member("b", 4, serial: 3))
        var one = AuthorityLedger(authority: Fixture.authority.publicKey)
        var other = AuthorityLedger(authority: Fixture.authority.publicKey)
        _ = one.receive(first)
        #expect(one.receive(second).change != nil)
        _ = other.receive(second)
        #expect(other.receive(first).refusal == .conflicting(serial: 3))
        #expect(one.statements == other.statements)
        #expect(one.policy().memberID(of: Fixture.curveKey(4)) == "b")
    }

    @Test func aFullLedgerRefusesNewKeysButTakesNewsOfHeldOnes() {
        var small = AuthorityLedger(authority: Fixture.authority.publicKey, maxEntries: 2)
        _ = small.receive(Fixture.signed(Fixture.member("n1", 1, serial: 1)))
        _ = small.receive(Fixture.signed(Fixture.member("n2", 2, serial: 1)))
        #expect(small.receive(Fixture.signed(Fixture.member("n3", 3, serial: 1))).refusal == .full(limit: 2))
        #expect(small.receive(Fixture.signed(Fixture.revocation(1, serial: 2))).change != nil)
        #expect(small.count == 2)
        #expect(small.counters.full == 1)
    }

    /// Gossip delivers in any order and more than once: every order of the same statements
    /// (duplicates, stale ones and conflicts included) leaves the same ledger and policy.
    @Test func theResultDoesNotDependOnArrivalOrder() {
        let statements: [SignedStatement] = [
            Fixture.member("n1", 1, serial: 1), Fixture.member("n1", 2, serial: 4), Fixture.revocation(1, serial: 5),
            Fixture.operator("alice", 3, .viewer, serial: 2), Fixture.operator("alice", 3, .admin, serial: 6),
            Fixture.member("n2", 4, serial: 3), Fixture.member("n9", 4, serial: 3), Fixture.member("n2", 4, serial: 1),
            Fixture.member("n5", 5, serial: 8), Fixture.revocation(5, serial: 7), Fixture.member("n5", 5, serial: 9),
        ].map { Fixture.signed($0) }
        var reference = AuthorityLedger(authority: Fixture.authority.publicKey)
        for signed in statements { _ = reference.receive(signed) }
        var generator = SeededGenerator(state: 7)
        for _ in 0..<300 {
            var ledger = AuthorityLedger(authority: Fixture.authority.publicKey)
            var delivery = statements + statements.prefix(generator.next(statements.count))
            delivery.shuffle(using: &generator)
            for signed in delivery { _ = ledger.receive(signed) }
            #expect(ledger.statements == reference.statements)
            #expect(ledger.policy() == reference.policy())
        }
        let policy = reference.policy()
        #expect(policy.revoked == [Fixture.curveKey(1), Fixture.curveKey(5)])
        #expect(policy.keys(ofMember: "n1") == [Fixture.curveKey(2)])
        #expect(policy.memberID(of: Fixture.curveKey(4)) == "n9")
        #expect(policy.operator(of: Fixture.curveKey(3)) == .init(name: "alice", role: .admin, serial: 6))
    }
}
