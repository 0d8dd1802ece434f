import RexAuthority
import RexControl
import Testing

/// The policy a node applies: its files' members and operators with the ledger laid over them.
@Suite struct AuthorityPolicyTests {
    /// n1 and n2 from the cluster file, alice (admin) from the operators file.
    let initial = AuthorityPolicy(
        members: [Fixture.curveKey(1): "n1", Fixture.curveKey(2): "n2"],
        operators: [Fixture.curveKey(10): (name: "alice", role: .admin)])

    func policy(_ statements: Statement...) -> AuthorityPolicy {
        var ledger = AuthorityLedger(authority: Fixture.authority.publicKey)
        for statement in statements { _ = ledger.receive(Fixture.signed(statement)) }
        return ledger.policy(over: initial)
    }

    @Test func withoutStatementsTheFilesDecide() {
        let policy = policy()
        #expect(policy.memberID(of: Fixture.curveKey(1)) == "n1")
        #expect(policy.operator(of: Fixture.curveKey(10)) == .init(name: "alice", role: .admin, serial: 0))
        #expect(policy.memberID(of: Fixture.curveKey(3)) == nil)
        #expect(policy.revoked.isEmpty)
        #expect(policy.memberIDs == ["n1", "n2"])
    }

    @Test func anAdmittedMemberJoinsTheFilesOnes() {
        let policy = policy(Fixture.member("n3", 3, serial: 1))
        #expect(policy.memberID(of: Fixture.curveKey(3)) == "n3")
        #expect(policy.memberIDs == ["n1", "n2", "n3"])
    }

    /// Rotation: a second key for n1 is admitted; both let n1 in until the old one is revoked,
    /// and the newest is the one n1 publishes with.
    @Test func aRotatingMemberHoldsBothKeysUntilTheOldIsRevoked() {
        let rotating = policy(Fixture.member("n1", 11, serial: 4))
        #expect(rotating.keys(ofMember: "n1") == [Fixture.curveKey(11), Fixture.curveKey(1)])
        #expect(rotating.currentKey(ofMember: "n1") == Fixture.curveKey(11))
        #expect(rotating.memberID(of: Fixture.curveKey(1)) == "n1")

        let rotated = policy(Fixture.member("n1", 11, serial: 4), Fixture.revocation(1, serial: 5))
        #expect(rotated.keys(ofMember: "n1") == [Fixture.curveKey(11)])
        #expect(rotated.memberID(of: Fixture.curveKey(1)) == nil)
        #expect(rotated.isRevoked(Fixture.curveKey(1)))
    }

    /// A revocation overrides the files: a stolen key of the cluster file stops working.
    @Test func revokingAFileKeyRemovesItEverywhere() {
        let policy = policy(Fixture.revocation(2, serial: 1), Fixture.revocation(10, serial: 2))
        #expect(policy.memberID(of: Fixture.curveKey(2)) == nil)
        #expect(policy.operator(of: Fixture.curveKey(10)) == nil)
        #expect(policy.memberIDs == ["n1"])
        #expect(policy.revoked == [Fixture.curveKey(2), Fixture.curveKey(10)])
    }

    @Test func theLatestStatementSaysWhatAKeyIs() {
        let demoted = policy(Fixture.operator("alice", 10, .viewer, serial: 3))
        #expect(demoted.operator(of: Fixture.curveKey(10))?.role == .viewer)
        // A key stated to be an operator's is no longer the member key the file said it was.
        let moved = policy(Fixture.operator("bob", 2, .viewer, serial: 1))
        #expect(moved.memberID(of: Fixture.curveKey(2)) == nil)
        #expect(moved.operator(of: Fixture.curveKey(2))?.name == "bob")
    }
}
