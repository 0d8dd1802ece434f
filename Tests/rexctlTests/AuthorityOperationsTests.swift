import Foundation
import RexAuthority
import RexCluster
import RexControl
import RexFeeds
import Testing
import ZMQ

@testable import RexNode
@testable import rexctl

/// `rexctl admit`, `revoke` and `operators` against secured nodes with a cluster authority:
/// signed at the next serial the nodes hold, given to every node, and reported per node.
@Suite(.serialized) struct AuthorityOperationsTests {
    /// Two secured nodes (in-process) given the authority, and a folder laid out as
    /// deploy/cluster.sh lays it out: cluster.json, operators.json, keys/, authority.key.
    final class Cluster {
        let folder: TemporaryDirectory
        var nodes: [Node] = []
        let authority: AuthoritySigningKey

        init(withAuthority: Bool = true) async throws {
            folder = try TemporaryDirectory()
            authority = try AuthoritySigningKey.generate()
            try folder.write(
                "authority.key", AuthorityKeyFile(signingKey: authority).encoded(comment: "test"))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder.path + "/authority.key")
            let root = try ZMQCurveKeyPair.generate()
            try SecurityTests.SecuredNode.writeKey(root, to: folder.path + "/keys/operator.key")
            for name in ["carol", "n9"] {
                let made = await cli(["keygen", folder.path + "/keys/\(name).key"])
                #expect(made.code == 0, "\(made)")
            }
            let operators = OperatorsFile(operators: [.init(name: "operator", key: root.publicKey.z85, role: .admin)])
            try folder.write("operators.json", operators.encoded())
            let keys = try ["n1": ZMQCurveKeyPair.generate(), "n2": ZMQCurveKeyPair.generate()]
            var entries: [String] = []
            for id in keys.keys.sorted() {
                var configuration = NodeConfiguration(
                    id: id, pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*",
                    membershipEndpoint: "tcp://127.0.0.1:*", logLevel: .error)
                configuration.security = NodeSecurity(
                    keys: KeyFile(publicKey: keys[id]!.publicKey.z85, secretKey: keys[id]!.secretKey.z85),
                    members: keys.keys.sorted().map { .init(id: $0, key: keys[$0]!.publicKey.z85, pub: nil) },
                    operators: operators, authority: withAuthority ? authority.publicKey : nil)
                let node = try Node.start(configuration)
                nodes.append(node)
                entries.append(
                    #"{"id": "\#(id)", "pub": "\#(node.pubEndpoint)", "control": "\#(node.controlEndpoint)", "key": "\#(keys[id]!.publicKey.z85)"}"#
                )
            }
            try folder.write("cluster.json", #"{"nodes": [\#(entries.joined(separator: ", "))]}"#)
        }

        func run(_ arguments: [String], key: String = "operator") async -> RunResult {
            await cli(
                ["--cluster", folder.path + "/cluster.json", "--timeout", "1s", "--key", folder.path + "/keys/\(key).key"] + arguments,
                environment: RexCtlEnvironment(
                    variables: [AuthorityCommand.environmentVariable: folder.path + "/authority.key"], currentDirectory: folder.path))
        }

        func stop() async {
            for node in nodes { await node.stop() }
            folder.cleanup()
        }
    }

    @Test func admitAndRevokeReachEveryNodeAtTheNextSerial() async throws {
        let cluster = try await Cluster()
        let admitted = await cluster.run(["admit", "n9", "--key", "keys/n9.pub"])
        #expect(admitted.code == 0, "\(admitted)")
        let n9 = try KeyFile.read(path: cluster.folder.path + "/keys/n9.pub", requiringSecret: false).publicKey
        #expect(
            admitted.stdout == "member n9 has key \(n9) (serial 1)\n  n1: accepted\n  n2: accepted\naccepted on 2 of 2 nodes\n",
            "\(admitted)")
        // The next serial is one above what the nodes hold; -o json says what each node did.
        let revoked = await cluster.run(["-o", "json", "revoke", "--", n9])
        #expect(revoked.code == 0, "\(revoked)")
        #expect(revoked.stdout.contains(#""kind":"revocation","serial":2"#), "\(revoked)")
        #expect(revoked.stdout.contains(#"{"node":"n1","result":"accepted"}"#) && revoked.stdout.contains(#""accepted":2,"of":2"#))
        for node in cluster.nodes { #expect(node.ioCounters().authority?.highestSerial == 2) }
        // Again: every node holds it already — no error.
        let again = await cluster.run(["revoke", "--serial", "2", "--", n9])
        #expect(again.code == 0 && again.stdout.contains("  n2: already held"), "\(again)")
        // A lower serial about the same key: refused by both, exit 2, each node's reason shown.
        let stale = await cluster.run(["admit", "n9", "--key", "keys/n9.pub", "--serial", "1"])
        #expect(stale.code == 2, "\(stale)")
        #expect(stale.stdout.contains("statementRefused: refused: key") && stale.stdout.contains("accepted on 0 of 2 nodes"), "\(stale)")
        #expect(stale.stderr.contains("2 of 2 nodes did not take the statement"), "\(stale)")
        await cluster.stop()
    }

    /// Signed on the authority's offline machine, carried over as a file, and sent by an
    /// operator who does not hold the authority's key.
    @Test func aStatementSignedOfflineIsSentFromItsFile() async throws {
        let cluster = try await Cluster()
        let signed = await cluster.run(
            ["authority", "sign", "operator", "carol", "--key", "keys/carol.pub", "--role", "viewer", "--serial", "5"])
        #expect(signed.code == 0, "\(signed)")
        let sent = await cli(
            [
                "--cluster", cluster.folder.path + "/cluster.json", "--key", cluster.folder.path + "/keys/operator.key",
                "authority", "send", "operator-carol-5.statement",
            ],
            environment: RexCtlEnvironment(variables: [:], currentDirectory: cluster.folder.path))
        #expect(sent.code == 0, "\(sent)")
        #expect(sent.stdout.hasSuffix("  n1: accepted\n  n2: accepted\naccepted on 2 of 2 nodes\n"), "\(sent)")
        #expect(await cluster.run(["state", "n2"], key: "carol").code == 0)
        try cluster.folder.write("junk.statement", "not a statement\n")
        let junk = await cluster.run(["authority", "send", "junk.statement"])
        #expect(junk.code == 1, "\(junk)")
        let signedAgain = await cluster.run(["authority", "send", "operator-carol-5.statement", "--authority", "authority.key"])
        #expect(signedAgain.code == 64 && signedAgain.stderr.contains("--authority does not apply to authority send"), "\(signedAgain)")
        await cluster.stop()
    }

    @Test func operatorsAreAddedGivenARoleAndRemoved() async throws {
        let cluster = try await Cluster()
        #expect(await cluster.run(["nodes"], key: "carol").code == 2, "carol is no operator yet")
        let added = await cluster.run(["operators", "add", "carol", "--key", "keys/carol.pub", "--role", "viewer"])
        #expect(added.code == 0 && added.stdout.contains("operator carol has key"), "\(added)")
        #expect(await cluster.run(["state", "n1"], key: "carol").code == 0)
        let forbidden = await cluster.run(["send", "n1", "set", "t", "1"], key: "carol")
        #expect(forbidden.code == 2 && forbidden.stderr.contains("forbidden"), "\(forbidden)")
        let promoted = await cluster.run(["operators", "role", "carol", "admin", "--key", "keys/carol.pub"])
        #expect(promoted.code == 0 && promoted.stdout.contains("and role admin (serial 2)"), "\(promoted)")
        #expect(await cluster.run(["send", "n1", "set", "t", "1"], key: "carol").code == 0)
        let carol = try KeyFile.read(path: cluster.folder.path + "/keys/carol.pub", requiringSecret: false).publicKey
        let removed = await cluster.run(["operators", "remove", "--", carol])
        #expect(removed.code == 0 && removed.stdout.contains("is revoked (serial 3)"), "\(removed)")
        #expect(await cluster.run(["state", "n1"], key: "carol").code == 2, "carol is refused")
        // The operators file's own operator, removed by name: the next request is refused too.
        let root = await cluster.run(["operators", "remove", "operator"])
        #expect(root.code == 0, "\(root)")
        #expect(await cluster.run(["nodes"]).code == 2)
        await cluster.stop()
    }

    @Test func refusalsBeforeAnythingIsSent() async throws {
        let cluster = try await Cluster(withAuthority: false)
        let noAuthority = await cluster.run(["admit", "n9", "--key", "keys/n9.pub"])
        #expect(noAuthority.code == 2 && noAuthority.stderr.contains("no node has a cluster authority"), "\(noAuthority)")
        let forced = await cluster.run(["admit", "n9", "--key", "keys/n9.pub", "--serial", "4"])
        #expect(forced.code == 2 && forced.stdout.contains("has no cluster authority"), "\(forced)")
        let usage: [([String], String)] = [
            (["admit", "n9"], "admit needs --key FILE"),
            (["admit", "bad id", "--key", "keys/n9.pub"], "is not a member id"),
            (["admit", "n9", "--key", "keys/n9.pub", "--serial", "0"], "--serial expects a whole number"),
            (["revoke"], "Missing expected argument"),
            (["revoke", "nobody"], "no node or operator 'nobody'"),
            (["operators", "add", "dave", "--role", "viewer"], "operators add needs --key FILE"),
            (["operators", "add", "dave", "--key", "keys/carol.pub", "--role", "root"], "a role is admin or viewer, not 'root'"),
            (["operators", "role", "dave"], "operators role takes NAME and ROLE"),
            (["operators", "role", "dave", "admin"], "no operator 'dave'"),
            (["operators", "remove", "operator", "--role", "admin"], "--key and --role do not apply"),
            (["operators", "grant", "x"], "operators expects add, role or remove"),
        ]
        for (arguments, message) in usage {
            let result = await cluster.run(arguments)
            #expect(result.code == 64, "\(arguments): \(result)")
            #expect(result.stderr.contains(message), "\(arguments): \(result)")
        }
        let unsigned = await cli(
            ["--cluster", cluster.folder.path + "/cluster.json", "revoke", "n1"],
            environment: RexCtlEnvironment(variables: [:], currentDirectory: cluster.folder.path))
        #expect(unsigned.code == 64 && unsigned.stderr.contains("pass --authority FILE"), "\(unsigned)")
        for node in cluster.nodes { #expect(node.ioCounters().authority == nil) }
        await cluster.stop()
    }
}
