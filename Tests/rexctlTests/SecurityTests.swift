import Foundation
import RexCluster
import RexControl
import RexFeeds
import RexNode
import Testing
import ZMQ

@testable import rexctl

/// rexctl against a secured node: keys, roles, and one actionable line (exit 2, no hang) for
/// every way CURVE can fail.
@Suite(.serialized) struct SecurityTests {
    /// A secured node in-process, and a folder laid out as deploy/cluster.sh lays it out.
    final class SecuredNode {
        let folder: TemporaryDirectory
        let node: Node
        let nodeKeys: ZMQCurveKeyPair
        let clusterPath: String

        init(operators: [(String, OperatorRole)] = [("operator", .admin), ("viewer", .viewer)]) throws {
            folder = try TemporaryDirectory()
            nodeKeys = try ZMQCurveKeyPair.generate()
            var listed: [OperatorsFile.Operator] = []
            for (name, role) in operators {
                let pair = try ZMQCurveKeyPair.generate()
                try Self.writeKey(pair, to: folder.path + "/keys/\(name).key")
                listed.append(.init(name: name, key: pair.publicKey.z85, role: role))
            }
            var configuration = NodeConfiguration(
                id: "n1", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
                logLevel: .error)
            configuration.security = NodeSecurity(
                keys: KeyFile(publicKey: nodeKeys.publicKey.z85, secretKey: nodeKeys.secretKey.z85),
                members: [.init(id: "n1", key: nodeKeys.publicKey.z85, pub: nil)],
                operators: OperatorsFile(operators: listed))
            node = try Node.start(configuration)
            clusterPath = folder.path + "/cluster.json"
            try writeCluster(key: nodeKeys.publicKey.z85)
        }

        func writeCluster(key: String?) throws {
            let keyMember = key.map { #", "key": "\#($0)""# } ?? ""
            try folder.write(
                "cluster.json",
                #"{"nodes": [{"id": "n1", "pub": "\#(node.pubEndpoint)", "control": "\#(node.controlEndpoint)"\#(keyMember)}]}"#)
        }

        static func writeKey(_ pair: ZMQCurveKeyPair, to path: String) throws {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try KeyFile.write(
                KeyFile(publicKey: pair.publicKey.z85, secretKey: pair.secretKey.z85).encoded(comment: "test"),
                to: path, mode: 0o600, overwrite: true)
        }

        func run(_ arguments: [String]) async -> RunResult {
            await cli(["--cluster", clusterPath, "--timeout", "1s"] + arguments)
        }

        func stop() async {
            await node.stop()
            folder.cleanup()
        }
    }

    @Test func keygenWritesAPrivatePairAndItsPublicHalf() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let file = folder.path + "/keys/alice.key"
        let made = await cli(["keygen", file])
        #expect(made.code == 0, "\(made)")
        let secret = try KeyFile.read(path: file, requiringSecret: true)
        let pub = try KeyFile.read(path: folder.path + "/keys/alice.pub", requiringSecret: false)
        #expect(made.stdout == secret.publicKey + "\n")
        #expect(pub == KeyFile(publicKey: secret.publicKey, secretKey: nil))
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        let secretKey = try #require(secret.secretKey.flatMap(ZMQCurveKey.init(z85:)))
        #expect(try ZMQCurveKeyPair.publicKey(of: secretKey).z85 == secret.publicKey)

        let again = await cli(["keygen", file])
        #expect(again.code == 1)
        #expect(again.stderr.contains("already exists (pass --force to replace it)"), "\(again)")
        #expect(try KeyFile.read(path: file, requiringSecret: true) == secret, "the first key is kept")
        let forced = await cli(["keygen", file, "--force", "-o", "json"])
        #expect(forced.code == 0, "\(forced)")
        let replaced = try KeyFile.read(path: file, requiringSecret: true)
        #expect(replaced.publicKey != secret.publicKey)
        #expect(forced.stdout.contains(#""publicKey":"\#(replaced.publicKey)""#), "\(forced)")
    }

    @Test func anAdminReadsAndDispatchesAViewerOnlyReads() async throws {
        let secured = try SecuredNode()
        let admin = secured.folder.path + "/keys/operator.key"
        let viewer = secured.folder.path + "/keys/viewer.key"
        // The default key: keys/operator.key beside the cluster file.
        let ping = await secured.run(["nodes"])
        #expect(ping.code == 0, "\(ping)")
        let set = await secured.run(["send", "n1", "set", "t", "1"])
        #expect(set.code == 0, "\(set)")
        let state = await secured.run(["--key", viewer, "state", "n1", "-o", "json"])
        #expect(state.code == 0, "\(state)")
        let forbidden = await secured.run(["--key", viewer, "send", "n1", "set", "t", "2"])
        #expect(forbidden.code == 2)
        #expect(forbidden.stderr.contains("forbidden: operator viewer has role viewer"), "\(forbidden)")
        #expect(forbidden.stderr.split(separator: "\n").count == 1)
        let explicit = await secured.run(["--key", admin, "send", "n1", "set", "t", "3"])
        #expect(explicit.code == 0)
        await secured.stop()
    }

    @Test func aKeyTheNodeDoesNotListIsRefusedInOneLine() async throws {
        let secured = try SecuredNode()
        let stranger = secured.folder.path + "/keys/stranger.key"
        let pair = try ZMQCurveKeyPair.generate()
        try SecuredNode.writeKey(pair, to: stranger)
        // The refusal is definitive: rexctl answers as soon as the node says no, not at --timeout
        // (a minute here: a wait for it could not pass for load).
        let refused = await cli(["--cluster", secured.clusterPath, "--timeout", "60s", "--key", stranger, "send", "n1", "set", "t", "1"])
        #expect(refused.code == 2)
        #expect(refused.stderr.contains("refused key \(CurveKeyText.short(pair.publicKey.z85)) (ZAP status 400)"), "\(refused)")
        #expect(refused.stderr.contains("operators file"))
        #expect(refused.elapsed < .seconds(60), "answered before its timeout: \(refused.elapsed)")
        #expect(secured.node.state.feeds.isEmpty)
        await secured.stop()
    }

    @Test func aPlainClientIsToldTheNodeRequiresCurve() async throws {
        let secured = try SecuredNode()
        let plain = await cli(["--node", "n1=\(secured.node.controlEndpoint)", "--timeout", "1s", "state", "n1"])
        #expect(plain.code == 2)
        #expect(plain.stderr.contains("requires CURVE") && plain.stderr.contains("rexctl spoke plain"), "\(plain)")
        await secured.stop()
    }

    @Test func aNodeWithAnotherKeyThanTheClusterFileSaysIsNotTrusted() async throws {
        let secured = try SecuredNode()
        try secured.writeCluster(key: try ZMQCurveKeyPair.generate().publicKey.z85)
        let mismatch = await secured.run(["state", "n1"])
        #expect(mismatch.code == 2)
        #expect(mismatch.stderr.contains("did not complete the CURVE handshake: it does not hold the key"), "\(mismatch)")
        await secured.stop()
    }

    @Test func aPlainNodeWithAKeyInTheClusterFileIsNamed() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let node = try Node.start(
            NodeConfiguration(
                id: "p1", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
                logLevel: .error))
        try SecuredNode.writeKey(try ZMQCurveKeyPair.generate(), to: folder.path + "/keys/operator.key")
        let key = try ZMQCurveKeyPair.generate().publicKey.z85
        try folder.write("cluster.json", #"{"nodes": [{"id": "p1", "control": "\#(node.controlEndpoint)", "key": "\#(key)"}]}"#)
        let result = await cli(["--cluster", folder.path + "/cluster.json", "--timeout", "1s", "state", "p1"])
        #expect(result.code == 2)
        #expect(result.stderr.contains("runs without CURVE, but the cluster file has a key for it"), "\(result)")
        await node.stop()
    }

    @Test func aDownNodeIsStillReportedAsNotAnswering() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        try SecuredNode.writeKey(try ZMQCurveKeyPair.generate(), to: folder.path + "/keys/operator.key")
        let key = try ZMQCurveKeyPair.generate().publicKey.z85
        try folder.write("cluster.json", #"{"nodes": [{"id": "d1", "control": "\#(try unusedLoopbackEndpoint())", "key": "\#(key)"}]}"#)
        let result = await cli(["--cluster", folder.path + "/cluster.json", "--timeout", "500ms", "state", "d1"])
        #expect(result.code == 2)
        #expect(result.stderr.contains("did not answer within 500ms"), "\(result)")
    }

    @Test func aMissingOrWorldReadableKeyFileIsRefusedBeforeAnythingIsSent() async throws {
        let secured = try SecuredNode()
        let missing = await secured.run(["--key", secured.folder.path + "/nope.key", "state", "n1"])
        #expect(missing.code == 2)
        #expect(missing.stderr.contains("cannot use the key file \(secured.folder.path)/nope.key: it does not exist"), "\(missing)")
        #expect(missing.stderr.contains("pass --key FILE or set REXCTL_KEY"))
        let file = secured.folder.path + "/keys/operator.key"
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let open = await secured.run(["state", "n1"])
        #expect(open.code == 2)
        #expect(open.stderr.contains("run: chmod 600 \(file)"), "\(open)")
        // $REXCTL_KEY names the key file too.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let viaEnvironment = await cli(
            ["--cluster", secured.clusterPath, "--key", secured.folder.path + "/keys/viewer.key", "send", "n1", "set", "a", "b"],
            environment: RexCtlEnvironment(variables: ["REXCTL_KEY": file], currentDirectory: "/"))
        #expect(viaEnvironment.code == 2, "--key wins over REXCTL_KEY")
        let environmentOnly = await cli(
            ["--cluster", secured.clusterPath, "send", "n1", "set", "a", "b"],
            environment: RexCtlEnvironment(variables: ["REXCTL_KEY": secured.folder.path + "/keys/viewer.key"], currentDirectory: "/"))
        #expect(environmentOnly.stderr.contains("forbidden"), "\(environmentOnly)")
        await secured.stop()
    }
}

/// How a silent connection's events are read (no sockets).
@Suite struct ConnectionEventsTests {
    func events(_ kinds: [(ZMQMonitorEvent.Kind, UInt32)]) -> ConnectionEvents {
        var events = ConnectionEvents()
        events.record(kinds.map { ZMQMonitorEvent(kind: $0.0, value: $0.1, endpoint: "tcp://127.0.0.1:1") })
        return events
    }

    @Test func eachFailureIsNamedAndADownOrBusyNodeIsNot() {
        #expect(events([(.connected, 0), (.handshakeFailedAuth, 400)]).diagnosis(secured: true) == .keyRefused(status: 400))
        #expect(events([(.handshakeFailedProtocol, ZMQMonitorEvent.mechanismMismatch)]).diagnosis(secured: false) == .nodeRequiresCurve)
        #expect(events([(.handshakeFailedProtocol, ZMQMonitorEvent.mechanismMismatch)]).diagnosis(secured: true) == .nodeNotSecured)
        #expect(events([(.connected, 0), (.disconnected, 0)]).diagnosis(secured: true) == .serverKeyMismatch)
        // A plain client whose every connection closes during the handshake: the node noticed first.
        #expect(events([(.connected, 0), (.disconnected, 0)]).diagnosis(secured: false) == .closedDuringHandshake)
        #expect(events([(.connected, 0), (.handshakeSucceeded, 0), (.disconnected, 0)]).diagnosis(secured: false) == nil)
        // Nothing connected: the node is down; a completed handshake: it is busy.
        #expect(events([(.connectRetried, 100)]).diagnosis(secured: true) == nil)
        #expect(events([(.connected, 0), (.handshakeSucceeded, 0)]).diagnosis(secured: true) == nil)
        #expect(events([(.handshakeFailedAuth, 400)]).isDefinitive(secured: true))
        #expect(!events([(.connected, 0), (.disconnected, 0)]).isDefinitive(secured: true))
    }
}

extension SecurityTests {
    @Test func watchingCommandsSayWhyTooAndStopAtTheirTimeout() async throws {
        let secured = try SecuredNode()
        let stranger = secured.folder.path + "/keys/stranger.key"
        try SecuredNode.writeKey(try ZMQCurveKeyPair.generate(), to: stranger)
        let wait = await cli(["--cluster", secured.clusterPath, "--key", stranger, "wait", "n1", "--for", "gone=n9", "--timeout", "1s"])
        #expect(wait.code == 2, "\(wait)")
        #expect(wait.stderr.contains("refused key"), "\(wait)")
        expectEndedAtDeadline(wait, .seconds(1), before: .seconds(1) + GlobalOptions.defaultTimeout)
        let watch = await cli(["--cluster", secured.clusterPath, "--key", stranger, "keep", "n1", "--watch", "--timeout", "1s"])
        // keep --watch ends at --timeout with exit 0 (its design); it printed why meanwhile.
        #expect(watch.stderr.contains("refused key"), "\(watch)")
        expectEndedAtDeadline(watch, .seconds(1), before: .seconds(1) + GlobalOptions.defaultTimeout)
        await secured.stop()
    }
}
