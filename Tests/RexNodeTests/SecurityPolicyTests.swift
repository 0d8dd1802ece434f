import RexControl
import Testing
import ZMQ

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The ZAP decisions of a secured node, without sockets: who gets into which socket.
@Suite struct SecurityPolicyTests {
    let node = try! ZMQCurveKeyPair.generate()
    let peer = try! ZMQCurveKeyPair.generate()
    let admin = try! ZMQCurveKeyPair.generate()
    let viewer = try! ZMQCurveKeyPair.generate()

    func policy() throws -> ZapPolicy {
        ZapPolicy(
            try SecuritySetup(
                NodeSecurity(
                    keys: KeyFile(publicKey: node.publicKey.z85, secretKey: node.secretKey.z85),
                    members: [
                        .init(id: "n1", key: node.publicKey.z85, pub: "tcp://127.0.0.1:1"),
                        .init(id: "n2", key: peer.publicKey.z85, pub: "tcp://127.0.0.1:2"),
                    ],
                    operators: OperatorsFile(operators: [
                        .init(name: "alice", key: admin.publicKey.z85, role: .admin),
                        .init(name: "bob", key: viewer.publicKey.z85, role: .viewer),
                    ]))))
    }

    func request(_ domain: String, _ key: ZMQCurveKey?, mechanism: String = "CURVE") -> ZMQZapRequest {
        ZMQZapRequest(domain: domain, address: "127.0.0.1", mechanism: mechanism, clientKey: key)
    }

    @Test func operatorsGetIntoTheControlSocketAndMembersIntoThePublisher() throws {
        let policy = try policy()
        #expect(policy.decide(request(ZapPolicy.controlDomain, admin.publicKey)) == .allow(userID: admin.publicKey.z85))
        #expect(policy.decide(request(ZapPolicy.controlDomain, viewer.publicKey)) == .allow(userID: viewer.publicKey.z85))
        #expect(policy.decide(request(ZapPolicy.dataDomain, peer.publicKey)) == .allow(userID: "node:n2 " + peer.publicKey.z85))
        #expect(policy.member(ofUser: "node:n2 " + peer.publicKey.z85) == "n2")
        #expect(policy.member(ofUser: "node:n1 " + peer.publicKey.z85) == nil, "a key proves its own member only")
        #expect(policy.role(ofUser: admin.publicKey.z85) == .admin)
        #expect(policy.role(ofUser: viewer.publicKey.z85) == .viewer)
        #expect(policy.name(ofUser: viewer.publicKey.z85) == "bob")
        #expect(policy.serverKey(ofPublisher: "tcp://127.0.0.1:2") == peer.publicKey)
        #expect(policy.serverKey(ofPublisher: "tcp://127.0.0.1:3") == nil)
    }

    @Test func everythingElseIsRefused() throws {
        let policy = try policy()
        let stranger = try ZMQCurveKeyPair.generate().publicKey
        // A member is not an operator, an operator not a member.
        #expect(policy.decide(request(ZapPolicy.controlDomain, peer.publicKey)) == .deny(reason: "unknown operator key"))
        #expect(policy.decide(request(ZapPolicy.dataDomain, admin.publicKey)) == .deny(reason: "not a cluster member"))
        #expect(policy.decide(request(ZapPolicy.dataDomain, stranger)) == .deny(reason: "not a cluster member"))
        #expect(policy.decide(request("other", admin.publicKey)) == .deny(reason: "unknown domain"))
        #expect(policy.decide(request(ZapPolicy.controlDomain, nil, mechanism: "NULL")) == .deny(reason: "CURVE required"))
        #expect(policy.decide(request(ZapPolicy.controlDomain, admin.publicKey, mechanism: "PLAIN")) == .deny(reason: "CURVE required"))
        #expect(policy.role(ofUser: nil) == nil)
        #expect(policy.role(ofUser: stranger.z85) == nil)
    }

    @Test func aKeyFileWhoseSecretIsNotItsPublicKeysIsRefused() {
        let mixed = NodeSecurity(
            keys: KeyFile(publicKey: node.publicKey.z85, secretKey: peer.secretKey.z85), members: [],
            operators: OperatorsFile(operators: []))
        #expect(throws: NodeError.self) { try SecuritySetup(mixed) }
    }
}

@Suite struct SecurityMetricsTests {
    @Test func aSecuredNodesCountersAreExposedAndAPlainNodeHasNone() {
        let base = MetricsDocument(
            uptimeMs: 1,
            reconcile: .init(cycles: 0, changedCycles: 0, lastMs: 0, maxMs: 0, buildMs: 0, diffMs: 0, p50Ms: 0, p99Ms: 0, histogram: []),
            channels: .init(opens: 0, cancels: 0, recreates: 0, live: 0),
            messages: .init(
                published: 0, received: 0, malformed: 0, oversized: 0, gaps: 0, duplicates: 0, reordered: 0, restarts: 0,
                evicted: 0),
            snapshots: .init(served: 0, refused: 0), limits: .init(refusedActions: 0, subscriptionsUntracked: 0),
            mailbox: .init(depth: 0, maxDepth: 0), sockets: .init(open: 0, created: 0), process: .init(rssBytes: 0, fds: 0, cpuSeconds: nil)
        )
        #expect(!base.prometheusText(nodeID: "n1").contains("rexnode_handshakes_total"))
        var secured = base
        secured.security = .init(handshakesAllowed: 7, handshakesRefused: 3, forbidden: 2)
        let text = secured.prometheusText(nodeID: "n1")
        #expect(text.contains(#"rexnode_handshakes_total{result="allowed"} 7"#), "\(text)")
        #expect(text.contains(#"rexnode_handshakes_total{result="refused"} 3"#))
        #expect(text.contains(#"rexnode_forbidden_total 2"#))
        let json = String(decoding: (try? ControlCodec.encode(base)) ?? [], as: UTF8.self)
        #expect(!json.contains("security"), "a plain node's document has no security member")
    }
}
