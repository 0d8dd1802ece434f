import Foundation
import RexAuthority
import RexCluster
import RexControl
import RexFeeds
import RexNode
import Testing
import ZMQ

/// Key files, operators files and a node's security from its cluster file: bounded, checked,
/// and every refusal says what to do.
@Suite struct SecurityFileTests {
    struct Folder {
        let path = NSTemporaryDirectory() + "rexsec-files-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"

        init() throws { try FileManager.default.createDirectory(atPath: path + "/keys", withIntermediateDirectories: true) }

        func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
            let file = path + "/" + name
            _ = FileManager.default.createFile(atPath: file, contents: Data(text.utf8))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
            return file
        }

        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }

    static func keyText(_ pair: ZMQCurveKeyPair, secret: Bool = true) -> String {
        KeyFile(publicKey: pair.publicKey.z85, secretKey: secret ? pair.secretKey.z85 : nil).encoded(comment: "test")
    }

    @Test func aPrivateKeyFileLoadsAndAWorldReadableOneIsRefused() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let pair = try ZMQCurveKeyPair.generate()
        let good = try folder.write("keys/a.key", Self.keyText(pair))
        let loaded = try KeyFile.read(path: good, requiringSecret: true)
        #expect(loaded == KeyFile(publicKey: pair.publicKey.z85, secretKey: pair.secretKey.z85))

        for mode in [0o644, 0o640, 0o604, 0o660, 0o602] {
            let file = try folder.write("keys/open-\(mode).key", Self.keyText(pair), mode: mode)
            #expect(throws: SecurityFileError.self) { try KeyFile.read(path: file, requiringSecret: true) }
            do {
                _ = try KeyFile.read(path: file, requiringSecret: true)
            } catch {
                #expect(error.message.contains("chmod 600 \(file)"), "\(error.message)")
            }
        }
        // A public key file may be world-readable; it is not a secret one.
        let pub = try folder.write("keys/a.pub", Self.keyText(pair, secret: false), mode: 0o644)
        #expect(try KeyFile.read(path: pub, requiringSecret: false).secretKey == nil)
        #expect(throws: SecurityFileError.self) { try KeyFile.read(path: pub, requiringSecret: true) }
    }

    @Test(arguments: [
        ("", "it has no public-key line"),
        ("public-key = short\n", "its public-key is not 40 Z85 characters"),
        ("public-key: x\n", "line 1 is not 'name = value'"),
        ("colour = blue\n", "line 1 names 'colour'"),
        (
            "public-key = 0000000000000000000000000000000000000000\npublic-key = 0000000000000000000000000000000000000000\n",
            "it has two public-key lines"
        ),
        ("public-key = 000000000000000000000000000000000000000\"\n", "its public-key is not 40 Z85 characters"),
    ])
    func malformedKeyFilesSayWhatIsWrong(text: String, message: String) throws {
        do {
            _ = try KeyFile.parse(Array(text.utf8))
            Issue.record("parsed: \(text)")
        } catch {
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }

    @Test func oversizedAndMissingKeyFilesAreRefused() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let big = try folder.write("big.key", String(repeating: "# padding\n", count: 1000))
        #expect(throws: SecurityFileError("it is larger than 4096 bytes")) { try KeyFile.read(path: big, requiringSecret: true) }
        #expect(throws: SecurityFileError("it does not exist")) { try KeyFile.read(path: folder.path + "/none.key", requiringSecret: true) }
        #expect(throws: SecurityFileError("it is not a regular file")) {
            try KeyFile.read(path: folder.path + "/keys", requiringSecret: true)
        }
    }

    @Test func keyFilesAreWrittenPrivateAndNeverOverwrittenUnasked() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let file = folder.path + "/keys/new.key"
        try KeyFile.write("public-key = x\n", to: file, mode: 0o600, overwrite: false)
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(throws: SecurityFileError("it already exists (pass --force to replace it)")) {
            try KeyFile.write("public-key = y\n", to: file, mode: 0o600, overwrite: false)
        }
        try KeyFile.write("public-key = y\n", to: file, mode: 0o600, overwrite: true)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "public-key = y\n")
        #expect(KeyFile.publicPath(for: "keys/n1.key") == "keys/n1.pub")
        #expect(KeyFile.publicPath(for: "keys/n1") == "keys/n1.pub")
    }

    @Test(arguments: [
        (#"{"operators": [{"name": "a", "key": "k", "role": "admin"}]}"#, #"operator a has no "key" of 40 Z85 characters"#),
        (
            #"{"operators": [{"name": "a", "key": "0000000000000000000000000000000000000000", "role": "root"}]}"#,
            #"operator a has no "role" (admin or viewer)"#
        ),
        (#"{"operators": [{"key": "0000000000000000000000000000000000000000", "role": "admin"}]}"#, #"operators[0] has no "name""#),
        (
            #"{"operators": [{"name": "a b", "key": "0000000000000000000000000000000000000000", "role": "admin"}]}"#,
            #"operators[0] has no "name""#
        ),
        (
            #"{"operators": [{"name": "a", "key": "0000000000000000000000000000000000000000", "role": "admin"}, {"name": "b", "key": "0000000000000000000000000000000000000000", "role": "viewer"}]}"#,
            "operators a and b have the same key"
        ),
        (#"{"ops": []}"#, #"it has no "operators" array"#),
        ("nope", "it is not valid JSON"),
    ])
    func malformedOperatorsFilesSayWhatIsWrong(text: String, message: String) {
        do {
            _ = try OperatorsFile.parse(Array(text.utf8))
            Issue.record("parsed: \(text)")
        } catch {
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }

    @Test func rolesIncludeWhatTheySay() {
        #expect(OperatorRole.admin.includes(.admin) && OperatorRole.admin.includes(.viewer))
        #expect(OperatorRole.viewer.includes(.viewer) && !OperatorRole.viewer.includes(.admin))
        // Every operator action of the feeds node is an admin's: a viewer only reads.
        #expect(NodeFeature.operatorActions.actions.allSatisfy { $0.role == .admin })
    }

    @Test func theClusterFileCarriesKeysAndStillReadsWithout() throws {
        let key = "0000000000000000000000000000000000000000"
        let file = try ClusterFile.parse(
            Array(#"{"nodes": [{"id": "n1", "control": "c", "key": "\#(key)"}, {"id": "n2", "control": "d"}]}"#.utf8))
        #expect(file.nodes.map(\.key) == [key, nil])
        #expect(throws: ClusterFileError(#"node n1 has a "key" that is not 40 Z85 characters"#)) {
            try ClusterFile.parse(Array(#"{"nodes": [{"id": "n1", "control": "c", "key": "short"}]}"#.utf8))
        }
        #expect(throws: ClusterFileError(#"node n1 has a "key" that is not a string"#)) {
            try ClusterFile.parse(Array(#"{"nodes": [{"id": "n1", "control": "c", "key": 5}]}"#.utf8))
        }
        #expect(throws: ClusterFileError("nodes n1 and n2 have the same key")) {
            try ClusterFile.parse(
                Array(#"{"nodes": [{"id": "n1", "control": "c", "key": "\#(key)"}, {"id": "n2", "control": "d", "key": "\#(key)"}]}"#.utf8))
        }
    }

    /// A cluster folder as deploy/cluster.sh lays it out: cluster.json, operators.json, keys/.
    func clusterFolder(_ folder: Folder, nodes: [String: ZMQCurveKeyPair], keyless: String? = nil) throws -> String {
        let entries = nodes.keys.sorted().map { id in
            id == keyless
                ? #"{"id": "\#(id)", "pub": "tcp://127.0.0.1:1", "control": "tcp://127.0.0.1:2", "membership": "tcp://127.0.0.1:3"}"#
                : #"{"id": "\#(id)", "pub": "tcp://127.0.0.1:1", "control": "tcp://127.0.0.1:2", "membership": "tcp://127.0.0.1:3", "key": "\#(nodes[id]!.publicKey.z85)"}"#
        }
        for (id, pair) in nodes { _ = try folder.write("keys/\(id).key", Self.keyText(pair)) }
        let admin = try ZMQCurveKeyPair.generate()
        _ = try folder.write(
            "operators.json", OperatorsFile(operators: [.init(name: "admin", key: admin.publicKey.z85, role: .admin)]).encoded(),
            mode: 0o644)
        return try folder.write("cluster.json", #"{"nodes": [\#(entries.joined(separator: ", "))]}"#, mode: 0o644)
    }

    @Test func aNodeLoadsItsSecurityFromBesideItsClusterFile() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let pairs = try ["n1": ZMQCurveKeyPair.generate(), "n2": ZMQCurveKeyPair.generate()]
        let cluster = try clusterFolder(folder, nodes: pairs)
        guard case .run(let configuration) = try NodeCommand.parse(["--cluster", cluster, "--id", "n1"]) else {
            Issue.record("not a run")
            return
        }
        let security = try #require(configuration.security)
        #expect(security.keys.publicKey == pairs["n1"]!.publicKey.z85)
        #expect(security.members.map(\.id) == ["n1", "n2"])
        #expect(security.operators.operators.map(\.name) == ["admin"])
        // --insecure: plain, as asked.
        let plain = try #require(try NodeCommand.parse(["--cluster", cluster, "--id", "n1", "--insecure"]).runConfiguration)
        #expect(plain.security == nil && plain.insecure)
    }

    @Test func aNodeRefusesKeysThatDoNotFit() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let pairs = try ["n1": ZMQCurveKeyPair.generate(), "n2": ZMQCurveKeyPair.generate()]
        let cluster = try clusterFolder(folder, nodes: pairs)
        func refusal(_ arguments: [String]) -> String? {
            do {
                _ = try NodeCommand.parse(arguments)
                return nil
            } catch {
                return error.message
            }
        }
        // Another node's key file: its public key is not n1's.
        let wrong = refusal(["--cluster", cluster, "--id", "n1", "--key", folder.path + "/keys/n2.key"])
        #expect(wrong?.contains("but the cluster file") == true, "\(wrong ?? "accepted")")
        // A key file others may read.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder.path + "/keys/n1.key")
        let open = refusal(["--cluster", cluster, "--id", "n1"])
        #expect(open?.contains("chmod 600") == true, "\(open ?? "accepted")")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder.path + "/keys/n1.key")
        // No operators file.
        try FileManager.default.removeItem(atPath: folder.path + "/operators.json")
        let noOperators = refusal(["--cluster", cluster, "--id", "n1"])
        #expect(noOperators?.contains("operators file") == true, "\(noOperators ?? "accepted")")
        // --key without a cluster file.
        let noCluster = refusal(["--id", "n1", "--key", folder.path + "/keys/n1.key"])
        #expect(noCluster?.contains("--key, --operators and --authority need --cluster") == true)
    }

    /// The authority's public key: authority.pub beside the cluster file when there is one,
    /// `--authority FILE` to name it; a missing named file and the signing key are refused.
    @Test func aNodeTakesTheAuthoritysPublicKeyOnly() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let cluster = try clusterFolder(folder, nodes: ["n1": ZMQCurveKeyPair.generate(), "n2": ZMQCurveKeyPair.generate()])
        func security(_ extra: [String] = []) throws(NodeCommand.UsageError) -> NodeSecurity? {
            try NodeCommand.parse(["--cluster", cluster, "--id", "n1"] + extra).runConfiguration?.security
        }
        #expect(try security()?.authority == nil, "no authority.pub: the files' keys only")
        let signing = try AuthoritySigningKey.generate()
        _ = try folder.write(
            "authority.pub", AuthorityKeyFile(publicKey: signing.publicKey).encoded(comment: "test"), mode: 0o644)
        #expect(try security()?.authority == signing.publicKey)
        let other = try AuthoritySigningKey.generate()
        let named = try folder.write("other.pub", AuthorityKeyFile(publicKey: other.publicKey).encoded(comment: "test"), mode: 0o644)
        #expect(try security(["--authority", named])?.authority == other.publicKey)
        do {
            _ = try security(["--authority", folder.path + "/missing.pub"])
            Issue.record("a missing --authority file was accepted")
        } catch {
            #expect(error.message.contains("missing.pub") && error.message.contains("does not exist"), "\(error.message)")
        }
        let secret = try folder.write("authority.key", AuthorityKeyFile(signingKey: signing).encoded(comment: "test"))
        do {
            _ = try security(["--authority", secret])
            Issue.record("the authority's signing key was accepted by a node")
        } catch {
            #expect(error.message.contains("keep authority.key offline"), "\(error.message)")
        }
    }

    @Test func aSecuredClusterNeedsEveryMembersKey() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let pairs = try ["n1": ZMQCurveKeyPair.generate(), "n2": ZMQCurveKeyPair.generate()]
        let cluster = try clusterFolder(folder, nodes: pairs, keyless: "n2")
        do {
            _ = try NodeCommand.parse(["--cluster", cluster, "--id", "n1"])
            Issue.record("accepted a member without a key")
        } catch {
            #expect(error.message.contains("node n2 in the cluster file"), "\(error.message)")
        }
        // The keyless node itself runs plain (its entry has no key), on loopback.
        let plain = try #require(try NodeCommand.parse(["--cluster", cluster, "--id", "n2"]).runConfiguration)
        #expect(plain.security == nil)
    }
}
