import RexAuthority
import RexControl
import Testing
import ZMQ

@testable import RexNode

/// The live ZAP policy of a secured node as the authority's statements change it, without
/// sockets: who gets into which socket after each statement, and which members' connections
/// must be made anew.
@Suite struct LivePolicyTests {
    let node = try! ZMQCurveKeyPair.generate()
    let peer = try! ZMQCurveKeyPair.generate()
    let newcomer = try! ZMQCurveKeyPair.generate()
    let admin = try! ZMQCurveKeyPair.generate()
    let alice = try! ZMQCurveKeyPair.generate()
    let authority = try! AuthoritySigningKey.generate()

    func setup() throws -> SecuritySetup {
        try SecuritySetup(
            NodeSecurity(
                keys: KeyFile(publicKey: node.publicKey.z85, secretKey: node.secretKey.z85),
                members: [
                    .init(id: "n1", key: node.publicKey.z85, pub: "tcp://127.0.0.1:1"),
                    .init(id: "n2", key: peer.publicKey.z85, pub: "tcp://127.0.0.1:2"),
                ],
                operators: OperatorsFile(operators: [.init(name: "root", key: admin.publicKey.z85, role: .admin)]),
                authority: authority.publicKey))
    }

    func key(_ pair: ZMQCurveKeyPair) -> CurvePublicKey { CurvePublicKey(bytes: pair.publicKey.bytes)! }

    /// The ledger after `claims` (serials 1, 2, …), each accepted.
    func ledger(_ claims: [Statement.Claim]) throws -> AuthorityLedger {
        var ledger = AuthorityLedger(authority: authority.publicKey)
        for (index, claim) in claims.enumerated() {
            let outcome = ledger.receive(authority.sign(try Statement(serial: UInt64(index + 1), claim: claim)))
            guard case .accepted = outcome else { throw LedgerRefused(outcome: outcome) }
        }
        return ledger
    }

    struct LedgerRefused: Error { let outcome: AuthorityLedger.Outcome }

    func request(_ domain: String, _ key: ZMQCurveKey) -> ZMQZapRequest {
        ZMQZapRequest(domain: domain, address: "127.0.0.1", mechanism: "CURVE", clientKey: key)
    }

    @Test func aMemberAdmittedAtRunTimeGetsInAndIsExpectedWhereItPublishes() throws {
        let setup = try setup()
        let policy = ZapPolicy(setup)
        #expect(policy.decide(request(ZapPolicy.dataDomain, newcomer.publicKey)) == .deny(reason: "not a cluster member"))
        let changed = policy.update(try ledger([.member(id: "n4", key: key(newcomer))]).policy(over: setup.initial))
        #expect(changed == ["n4"])
        #expect(policy.decide(request(ZapPolicy.dataDomain, newcomer.publicKey)) == .allow(userID: "node:n4 " + newcomer.publicKey.z85))
        #expect(policy.admittedIDs == ["n1", "n2", "n4"])
        // Where it publishes is learned from the membership; only then is its key expected there.
        #expect(policy.serverKey(ofPublisher: "tcp://127.0.0.1:4") == nil)
        policy.learnPublisher("tcp://127.0.0.1:4", of: "n4")
        #expect(policy.serverKey(ofPublisher: "tcp://127.0.0.1:4") == newcomer.publicKey)
        // An operator key is not a member's, whatever the statements.
        #expect(policy.decide(request(ZapPolicy.dataDomain, admin.publicKey)) == .deny(reason: "not a cluster member"))
    }

    @Test func aRevokedMemberKeyIsRefusedEverywhereAndItsConnectionsNoLongerNameIt() throws {
        let setup = try setup()
        let policy = ZapPolicy(setup)
        let user = "node:n2 " + peer.publicKey.z85
        #expect(policy.member(ofUser: user) == "n2")
        let changed = policy.update(try ledger([.revocation(key: key(peer))]).policy(over: setup.initial))
        #expect(changed == ["n2"], "n2 has no key any more: its connections go")
        #expect(policy.decide(request(ZapPolicy.dataDomain, peer.publicKey)) == .deny(reason: "revoked key"))
        #expect(policy.decide(request(ZapPolicy.controlDomain, peer.publicKey)) == .deny(reason: "revoked key"))
        #expect(policy.member(ofUser: user) == nil, "a message on a connection made before the revocation is refused")
        #expect(policy.admittedIDs == ["n1"])
        #expect(policy.serverKey(ofPublisher: "tcp://127.0.0.1:2") == nil)
        #expect(policy.key(ofMember: "n2") == nil)
    }

    @Test func operatorsAreAddedChangedAndRemovedAtRunTime() throws {
        let setup = try setup()
        let policy = ZapPolicy(setup)
        let user = alice.publicKey.z85
        #expect(policy.role(ofUser: user) == nil)
        policy.update(try ledger([.operator(name: "alice", key: key(alice), role: .viewer)]).policy(over: setup.initial))
        #expect(policy.decide(request(ZapPolicy.controlDomain, alice.publicKey)) == .allow(userID: user))
        #expect(policy.role(ofUser: user) == .viewer)
        #expect(policy.name(ofUser: user) == "alice")
        policy.update(
            try ledger([.operator(name: "alice", key: key(alice), role: .viewer), .operator(name: "alice", key: key(alice), role: .admin)])
                .policy(over: setup.initial))
        #expect(policy.role(ofUser: user) == .admin)
        // Removing the file's operator: its next request has no role (the service answers forbidden).
        let changed = policy.update(try ledger([.revocation(key: key(admin))]).policy(over: setup.initial))
        #expect(changed.isEmpty, "an operator's key changes no member's connection")
        #expect(policy.role(ofUser: admin.publicKey.z85) == nil)
        #expect(policy.decide(request(ZapPolicy.controlDomain, admin.publicKey)) == .deny(reason: "revoked key"))
    }

    @Test func aMemberGivenANewKeyIsExpectedWithIt() throws {
        let setup = try setup()
        let policy = ZapPolicy(setup)
        let changed = policy.update(try ledger([.member(id: "n2", key: key(newcomer))]).policy(over: setup.initial))
        #expect(changed == ["n2"])
        #expect(policy.serverKey(ofPublisher: "tcp://127.0.0.1:2") == newcomer.publicKey, "the newest key is the one expected")
        // Its old key still proves it until revoked (a rotation's grace).
        #expect(policy.member(ofUser: "node:n2 " + peer.publicKey.z85) == "n2")
    }

    @Test func forgedUserIDsNameNoMember() throws {
        let policy = ZapPolicy(try setup())
        for user in [
            "", "node:", "node: " + peer.publicKey.z85, "node:n2", "node:n2 ", "n2 " + peer.publicKey.z85, "node:n2 short",
            "node:n2 " + peer.publicKey.z85 + "x",
        ] {
            #expect(policy.member(ofUser: user) == nil, "\(user)")
        }
        #expect(policy.member(ofUser: nil) == nil)
    }
}
