import Foundation
import NodeTestSupport
import RexAuthority
import RexCluster
import RexControl
import RexFeeds
import SharedTestSupport
import Testing
import ZMQ

@testable import RexNode

/// Secured nodes given the cluster authority's statements while they run (in-process, over
/// CURVE): the `statement` operation, what a statement changes at once, gossip between members,
/// every refusal counted, and the ledger kept across a restart.
@Suite(.serialized) struct AuthorityNodeTests {
    static let ping = #"{"v": 1, "id": "p", "op": "ping"}"#

    func folder(_ name: String) -> String {
        NSTemporaryDirectory() + "rex-authority-\(name)-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    }

    func cluster(_ nodes: [String]) throws -> SecureCluster {
        var cluster = try SecureCluster(nodes: nodes)
        cluster.authority = try AuthoritySigningKey.generate()
        return cluster
    }

    @Test func aStatementIsTakenKeptAndPassedOnToPeers() async throws {
        let cluster = try cluster(["a1", "a2"])
        let authority = try #require(cluster.authority)
        let directory = folder("a1")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let a1 = try cluster.start("a1", dataDirectory: directory)
        let a2 = try cluster.start("a2")
        #expect(await waitFor(a2, timeout: .seconds(10)) { $0.peers["a1"]?.status == .alive })
        #expect(await waitFor(a1, timeout: .seconds(10)) { $0.peers["a2"]?.status == .alive })
        let carol = try ZMQCurveKeyPair.generate()
        let a2Key = cluster.nodeKeys["a2"]!.publicKey
        #expect(
            try await secureControlRequest(a2.controlEndpoint, serverKey: a2Key, client: carol, Self.ping, timeout: .milliseconds(300))
                == nil, "carol is no operator yet")

        let statement = try authority.signed(1, .operator(name: "carol", key: carol.curveKey, role: .viewer))
        let reply = try await giveStatement(
            statement, to: a1, serverKey: cluster.nodeKeys["a1"]!.publicKey, as: cluster.operatorKeys["viewer"]!)
        #expect(reply?["ok"] as? Bool == true, "\(String(describing: reply))")
        #expect(result(of: reply)?["accepted"] as? Bool == true)
        #expect(result(of: reply)?["statements"] as? Int == 1)
        #expect((result(of: reply)?["statement"] as? String)?.hasPrefix("operator carol has key") == true)
        // Kept in a1's data directory, signature and all.
        #expect(try AuthorityLedgerFile.load(directory: directory, authority: authority.publicKey).statements == [statement])
        // a2 gets it from a1 over the data plane, and lets carol in at once.
        #expect(await eventually(.seconds(5)) { a2.authorityMetrics?.statements == 1 })
        let ping = try await secureControlRequest(a2.controlEndpoint, serverKey: a2Key, client: carol, Self.ping)
        #expect(ping?["ok"] as? Bool == true, "carol's key is an operator's on a2 now")
        // Given to a2 again: held already, nothing changes, and that is no error.
        let again = try await giveStatement(statement, to: a2, serverKey: a2Key, as: carol)
        #expect(again?["ok"] as? Bool == true)
        #expect(result(of: again)?["accepted"] as? Bool == false)
        #expect(result(of: again)?["reason"] as? String == "already held")
        #expect(a2.authorityMetrics?.accepted == 1)
        await a2.stop()
        await a1.stop()
    }

    /// A node that starts after its peer took 300 statements gets every one of them from the
    /// peer's snapshot, and keeps them in its data directory.
    @Test func aNodeThatStartsGetsEveryStatementItsPeerHolds() async throws {
        let cluster = try cluster(["f1", "f2"])
        let authority = try #require(cluster.authority)
        let f1 = try cluster.start("f1")
        let statements = try (1...300).map { serial in
            try authority.signed(
                UInt64(serial), .operator(name: "op\(serial)", key: try ZMQCurveKeyPair.generate().curveKey, role: .viewer))
        }
        let serverKey = cluster.nodeKeys["f1"]!.publicKey
        let admin = cluster.operatorKeys["admin"]!
        let accepted = try await offPool { () throws -> Int in
            let context = try ZMQContext()
            defer { try? context.terminate() }
            let connection = try OperatorConnection(context, f1.controlEndpoint, serverKey, admin)
            defer { connection.close() }
            return try statements.filter { json(try connection.exchange(statementRequest($0.encoded)))?["ok"] as? Bool == true }.count
        }
        #expect(accepted == 300)
        let directory = folder("f2")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let f2 = try cluster.start("f2", dataDirectory: directory)
        #expect(await eventually(.seconds(10)) { f2.authorityMetrics?.statements == 300 }, "\(String(describing: f2.authorityMetrics))")
        #expect(f2.authorityMetrics?.accepted == 300)
        #expect(try AuthorityLedgerFile.load(directory: directory, authority: authority.publicKey).count == 300)
        await f2.stop()
        await f1.stop()
    }

    @Test func everyRefusalIsCountedAndAForgedStatementChangesNothing() async throws {
        let cluster = try cluster(["b1"])
        let authority = try #require(cluster.authority)
        let b1 = try cluster.start("b1")
        let serverKey = cluster.nodeKeys["b1"]!.publicKey
        let admin = cluster.operatorKeys["admin"]!
        func give(_ bytes: [UInt8]) async throws -> [String: Any]? {
            try await secureControlRequest(b1.controlEndpoint, serverKey: serverKey, client: admin, statementRequest(bytes))
        }
        let member = try ZMQCurveKeyPair.generate().curveKey
        let revoked = try ZMQCurveKeyPair.generate().curveKey
        for accepted in [try authority.signed(5, .member(id: "m9", key: member)), try authority.signed(6, .revocation(key: revoked))] {
            #expect(result(of: try await give(accepted.encoded))?["accepted"] as? Bool == true)
        }
        let eve = try ZMQCurveKeyPair.generate()
        let forger = try AuthoritySigningKey.generate()
        let eveIsAdmin = try Statement(serial: 7, claim: .operator(name: "eve", key: eve.curveKey, role: .admin))
        var tampered = authority.sign(eveIsAdmin).encoded
        tampered[tampered.count - 1] ^= 1
        let refusals: [(bytes: [UInt8], reason: String, says: String)] = [
            (SignedStatement(eveIsAdmin, signature: nil).encoded, "unsigned", "not signed"),
            (forger.sign(eveIsAdmin).encoded, "otherSigner", "which is not the cluster authority"),
            (tampered, "badSignature", "does not verify"),
            (try authority.signed(4, .member(id: "m9", key: member)).encoded, "stale", "stale"),
            (try authority.signed(8, .member(id: "m8", key: revoked)).encoded, "revokedKey", "is revoked"),
            ([1, 2, 3], "malformed", "not a statement"),
        ]
        for refusal in refusals {
            let reply = try await give(refusal.bytes)
            #expect(reply?["ok"] as? Bool == false, "\(refusal.reason)")
            #expect(errorCode(of: reply) == "statementRefused", "\(refusal.reason)")
            let message = (reply?["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains(refusal.says), "\(refusal.reason): \(message)")
        }
        let notBase64 = try await secureControlRequest(
            b1.controlEndpoint, serverKey: serverKey, client: admin, #"{"v": 1, "op": "statement", "statement": "%%%"}"#)
        #expect(errorCode(of: notBase64) == "statementRefused")
        let missing = try await secureControlRequest(
            b1.controlEndpoint, serverKey: serverKey, client: admin, #"{"v": 1, "op": "statement"}"#)
        #expect(errorCode(of: missing) == "badRequest")

        let metrics = try #require(b1.authorityMetrics)
        #expect(metrics.accepted == 2 && metrics.statements == 2 && metrics.highestSerial == 6)
        #expect(
            metrics.refused == ["unsigned": 1, "otherSigner": 1, "badSignature": 1, "stale": 1, "revokedKey": 1, "malformed": 2],
            "\(metrics.refused)")
        // Eve, whom only forged and changed statements name, is no operator.
        #expect(
            try await secureControlRequest(b1.controlEndpoint, serverKey: serverKey, client: eve, Self.ping, timeout: .milliseconds(300))
                == nil)
        let document = try await secureControlRequest(
            b1.controlEndpoint, serverKey: serverKey, client: admin, #"{"v": 1, "op": "metrics"}"#)
        let requests = (result(of: document)?["controlRequests"] as? [String: Any])?["statement"] as? [String: Int]
        #expect(requests == ["ok": 2, "statementRefused": 7], "\(String(describing: requests))")
        await b1.stop()
    }

    @Test func aNodeWithoutAnAuthorityRefusesEveryStatement() async throws {
        let cluster = try SecureCluster(nodes: ["c1"])
        let c1 = try cluster.start("c1")
        let statement = try AuthoritySigningKey.generate().signed(1, .revocation(key: cluster.operatorKeys["admin"]!.curveKey))
        let reply = try await giveStatement(
            statement, to: c1, serverKey: cluster.nodeKeys["c1"]!.publicKey, as: cluster.operatorKeys["admin"]!)
        #expect(errorCode(of: reply) == "statementRefused")
        #expect(((reply?["error"] as? [String: Any])?["message"] as? String)?.contains("no cluster authority") == true)
        #expect(c1.authorityMetrics == nil)
        let ping = try await secureControlRequest(
            c1.controlEndpoint, serverKey: cluster.nodeKeys["c1"]!.publicKey, client: cluster.operatorKeys["admin"]!, Self.ping)
        #expect(ping?["ok"] as? Bool == true, "the admin is not revoked")
        await c1.stop()
    }

    /// The viewer's connection was let in before its key was revoked: its next request on that
    /// same connection is forbidden, and a new connection is refused at the handshake.
    @Test func aRevokedOperatorsNextRequestIsForbidden() async throws {
        let cluster = try cluster(["d1"])
        let authority = try #require(cluster.authority)
        let d1 = try cluster.start("d1")
        let serverKey = cluster.nodeKeys["d1"]!.publicKey
        let viewer = cluster.operatorKeys["viewer"]!
        let revocation = try authority.signed(1, .revocation(key: viewer.curveKey))
        let replies = try await offPool { () throws -> [[UInt8]?] in
            let context = try ZMQContext()
            defer { try? context.terminate() }
            let viewerSocket = try OperatorConnection(context, d1.controlEndpoint, serverKey, viewer)
            let adminSocket = try OperatorConnection(context, d1.controlEndpoint, serverKey, cluster.operatorKeys["admin"]!)
            defer {
                viewerSocket.close()
                adminSocket.close()
            }
            let before = try viewerSocket.exchange(Self.ping)
            let revoked = try adminSocket.exchange(statementRequest(revocation.encoded))
            return [before, revoked, try viewerSocket.exchange(Self.ping)]
        }
        let (before, revoked, after) = (json(replies[0]), json(replies[1]), json(replies[2]))
        #expect(before?["ok"] as? Bool == true)
        #expect(result(of: revoked)?["accepted"] as? Bool == true)
        #expect(errorCode(of: after) == "forbidden", "\(String(describing: after))")
        #expect(
            try await secureControlRequest(d1.controlEndpoint, serverKey: serverKey, client: viewer, Self.ping, timeout: .milliseconds(300))
                == nil, "a new connection with the revoked key is refused")
        await d1.stop()
    }

    @Test func theLedgerSurvivesARestartAndADamagedOneStopsTheStart() async throws {
        let cluster = try cluster(["e1"])
        let authority = try #require(cluster.authority)
        let directory = folder("e1")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let serverKey = cluster.nodeKeys["e1"]!.publicKey
        let viewer = cluster.operatorKeys["viewer"]!
        let first = try cluster.start("e1", dataDirectory: directory)
        let reply = try await giveStatement(
            try authority.signed(3, .revocation(key: viewer.curveKey)), to: first, serverKey: serverKey, as: viewer)
        #expect(result(of: reply)?["accepted"] as? Bool == true)
        await first.stop()

        let second = try cluster.start("e1", dataDirectory: directory)
        #expect(second.authorityMetrics?.statements == 1)
        #expect(second.authorityMetrics?.highestSerial == 3)
        #expect(
            try await secureControlRequest(
                second.controlEndpoint, serverKey: serverKey, client: viewer, Self.ping, timeout: .milliseconds(300))
                == nil, "still revoked after the restart")
        let ping = try await secureControlRequest(
            second.controlEndpoint, serverKey: serverKey, client: cluster.operatorKeys["admin"]!, Self.ping)
        #expect(ping?["ok"] as? Bool == true)
        await second.stop()

        // A changed ledger: the node refuses to start rather than trust it.
        let path = AuthorityLedgerFile.path(in: directory)
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: "statement = A", with: "statement = B")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: NodeError.self) { _ = try cluster.start("e1", dataDirectory: directory) }
        #expect(error?.code == .unusableState)
        #expect(error?.message.contains("authority ledger") == true, "\(String(describing: error))")
    }
}

/// A reply's JSON object.
func json(_ bytes: [UInt8]?) -> [String: Any]? {
    bytes.flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
}

/// One operator's control connection on one thread: requests answered in order.
final class OperatorConnection {
    private let socket: ZMQSocket

    init(_ context: ZMQContext, _ endpoint: String, _ serverKey: ZMQCurveKey, _ client: ZMQCurveKeyPair) throws {
        socket = try context.socket(.dealer)
        try socket.setOption(.linger, .zero)
        try socket.setOption(.receiveTimeout, .seconds(2))
        try socket.makeCurveClient(client, serverKey: serverKey)
        try socket.connect(endpoint)
    }

    /// Sends `payload` and waits (at most 2 s) for its reply's payload.
    func exchange(_ payload: String) throws -> [UInt8]? {
        _ = try socket.send(payload)
        guard let frames = try? socket.receiveMultipart() else { return nil }
        return frames.last
    }

    func close() { socket.close() }
}

/// Members admitted and revoked while the cluster runs: a newcomer joins and is followed; a
/// revoked member is left on every node, its data stops, and its key cannot bring it back.
@Suite(.serialized) struct AuthorityMembershipTests {
    @Test func aMemberAdmittedAtRunTimeJoinsAndARevokedOneIsLeftEverywhere() async throws {
        var cluster = try SecureCluster(nodes: ["r1", "r2", "r3"])
        let authority = try AuthoritySigningKey.generate()
        cluster.authority = authority
        let admin = cluster.operatorKeys["admin"]!
        // r1 and r2 start knowing each other only; r3's files know all three.
        let r1 = try cluster.start("r1", members: ["r1", "r2"])
        let r2 = try cluster.start("r2", members: ["r1", "r2"])
        #expect(await waitFor(r2, timeout: .seconds(10)) { $0.peers["r1"]?.status == .alive })
        #expect(await waitFor(r1, timeout: .seconds(10)) { $0.peers["r2"]?.status == .alive })
        let admit = try authority.signed(1, .member(id: "r3", key: cluster.nodeKeys["r3"]!.curveKey))
        #expect(
            result(of: try await giveStatement(admit, to: r1, serverKey: cluster.nodeKeys["r1"]!.publicKey, as: admin))?["accepted"]
                as? Bool == true)
        #expect(await eventually(.seconds(5)) { r2.authorityMetrics?.statements == 1 }, "r2 took the admission from r1")

        let r3 = try cluster.start("r3")
        for node in [r1, r2] {
            #expect(await waitFor(node, timeout: .seconds(10)) { $0.peers["r3"]?.status == .alive }, "\(node.id) sees r3 alive")
        }
        // r1 follows r3 over the shared subscriber and over a socket of its own: r1 expects r3's
        // key at the publisher the membership told it of.
        r1.dispatch(.follow(name: "shared", topic: "r3.t", from: nil))
        r1.dispatch(.follow(name: "own", topic: "r3.t", from: "r3"))
        r3.dispatch(.set(topic: "r3.t", value: "1"))
        #expect(await waitFor(r1, timeout: .seconds(10)) { $0.follows["shared"]?.lastValue == "1" && $0.follows["own"]?.lastValue == "1" })

        // Revoked at r2; r1 learns it from r2.
        let revoke = try authority.signed(2, .revocation(key: cluster.nodeKeys["r3"]!.curveKey))
        #expect(
            result(of: try await giveStatement(revoke, to: r2, serverKey: cluster.nodeKeys["r2"]!.publicKey, as: admin))?["accepted"]
                as? Bool == true)
        for node in [r1, r2] {
            #expect(await waitFor(node, timeout: .seconds(5)) { $0.peers["r3"]?.membership == .left }, "\(node.id) declares r3 left")
        }
        r3.dispatch(.set(topic: "r3.t", value: "2"))
        #expect(await waitFor(r3) { $0.feeds["r3.t"]?.value == "2" })
        try await Task.sleep(for: .milliseconds(300))
        #expect(r1.state.follows["shared"]?.lastValue == "1" && r1.state.follows["own"]?.lastValue == "1", "r3's data no longer reaches r1")

        // r3 comes back with the same key: refused by both.
        await r3.stop()
        let again = try cluster.start("r3")
        try await Task.sleep(for: .milliseconds(500))
        #expect(r1.state.peers["r3"]?.status != .alive && r2.state.peers["r3"]?.status != .alive)
        #expect(again.state.peers.values.allSatisfy { $0.status != .alive }, "no member answers r3")
        await again.stop()
        await r2.stop()
        await r1.stop()
    }
}
