import Foundation
import RexAuthority
import RexControl
import Testing

@testable import rexctl

/// `rexctl authority`: the authority's key pair, statements signed into files, and verify
/// refusing every statement the authority did not sign as it is.
@Suite struct AuthorityCommandTests {
    /// A folder rexctl runs in (its current directory), with an authority and a member key.
    struct Workspace {
        let folder: TemporaryDirectory
        let environment: RexCtlEnvironment
        var path: String { folder.path }
        var authorityKey: String { path + "/auth/authority.key" }
        var authorityPub: String { path + "/auth/authority.pub" }

        init(variables: [String: String] = [:]) async throws {
            folder = try TemporaryDirectory()
            environment = RexCtlEnvironment(variables: variables, currentDirectory: folder.path)
            let made = await cli(["authority", "init", "--out", folder.path + "/auth"])
            #expect(made.code == 0, "\(made)")
            let key = await cli(["keygen", folder.path + "/keys/n4.key"])
            #expect(key.code == 0, "\(key)")
        }

        func run(_ arguments: [String]) async -> RunResult { await cli(arguments, environment: environment) }

        /// Signs with the workspace's authority.
        func sign(_ arguments: [String]) async -> RunResult {
            await run(["authority", "sign"] + arguments + ["--authority", authorityKey])
        }

        func verify(_ file: String) async -> RunResult {
            await run(["authority", "verify", file, "--authority", authorityPub])
        }

        func memberKey() throws -> CurvePublicKey {
            try #require(CurvePublicKey(z85: try KeyFile.read(path: path + "/keys/n4.pub", requiringSecret: false).publicKey))
        }

        func statement(_ name: String) throws -> SignedStatement {
            try SignedStatement.decode(try StatementFile.read(path: path + "/" + name))
        }
    }

    @Test func initMakesAPrivateSigningKeyAndItsPublicHalf() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let made = await cli(["authority", "init", "--out", folder.path + "/auth"])
        #expect(made.code == 0, "\(made)")
        let secret = try AuthorityKeyFile.read(path: folder.path + "/auth/authority.key", requiringSecret: true)
        let pub = try AuthorityKeyFile.read(path: folder.path + "/auth/authority.pub", requiringSecret: false)
        #expect(made.stdout == secret.publicKey.z85 + "\n")
        #expect(pub.publicKey == secret.publicKey)
        #expect(pub.signingKey == nil)
        #expect(try FileManager.default.attributesOfItem(atPath: folder.path + "/auth/authority.key")[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: folder.path + "/auth")[.posixPermissions] as? Int == 0o700)

        let again = await cli(["authority", "init", "--out", folder.path + "/auth"])
        #expect(again.code == 1)
        #expect(again.stderr.contains("already exists (pass --force to replace it)"), "\(again)")
        #expect(try AuthorityKeyFile.read(path: folder.path + "/auth/authority.key", requiringSecret: true).publicKey == secret.publicKey)
        let forced = await cli(["-o", "json", "authority", "init", "--out", folder.path + "/auth", "--force"])
        #expect(forced.code == 0, "\(forced)")
        let replaced = try AuthorityKeyFile.read(path: folder.path + "/auth/authority.key", requiringSecret: true)
        #expect(replaced.publicKey != secret.publicKey)
        #expect(forced.stdout.contains(#""publicKey":"\#(replaced.publicKey.z85)""#), "\(forced)")
    }

    @Test func anAdmissionIsSignedWrittenAndVerified() async throws {
        let workspace = try await Workspace()
        defer { workspace.folder.cleanup() }
        let signed = await workspace.sign(["admit", "n4", "--key", workspace.path + "/keys/n4.pub", "--serial", "7"])
        #expect(signed.code == 0, "\(signed)")
        let key = try workspace.memberKey()
        #expect(signed.stdout.hasPrefix("wrote admit-n4-7.statement: member n4 has key \(key.short) (serial 7)"), "\(signed)")
        let statement = try workspace.statement("admit-n4-7.statement")
        #expect(statement.statement == (try Statement(serial: 7, claim: .member(id: "n4", key: key))))
        let authority = try AuthorityKeyFile.read(path: workspace.authorityPub, requiringSecret: false).publicKey
        try statement.verify(by: authority)

        let verified = await workspace.verify("admit-n4-7.statement")
        #expect(verified.code == 0, "\(verified)")
        #expect(
            verified.stdout
                == "admit-n4-7.statement: member n4 has key \(key.z85) (serial 7), signed by the authority (key \(authority.short))\n"
        )
    }

    @Test func anOperatorAndRevocationsAreSigned() async throws {
        let workspace = try await Workspace()
        defer { workspace.folder.cleanup() }
        let key = try workspace.memberKey()
        let signed = await workspace.sign(
            ["operator", "grafana", "--key", workspace.path + "/keys/n4.pub", "--role", "viewer", "--serial", "3", "-o", "json"])
        #expect(signed.code == 0, "\(signed)")
        #expect(signed.stdout.contains(#""kind":"operator","serial":3,"key":"\#(key.z85)","name":"grafana","role":"viewer""#), "\(signed)")
        #expect(
            try workspace.statement("operator-grafana-3.statement").statement.claim == .operator(name: "grafana", key: key, role: .viewer))

        // A key may start with '-' (Z85): after '--', it is never taken for an option.
        let byKey = await workspace.run(
            [
                "authority", "sign", "revoke", "--serial", "18446744073709551615", "--out", workspace.path + "/r.statement",
                "--authority", workspace.authorityKey, "--", key.z85,
            ])
        #expect(byKey.code == 0, "\(byKey)")
        let revocation = try workspace.statement("r.statement").statement
        #expect(revocation.claim == .revocation(key: key))
        #expect(revocation.serial == UInt64.max)
    }

    /// `revoke ID`: the key of a node from the cluster file, or of an operator from the
    /// operators file beside it; an unknown or ambiguous name is a usage error.
    @Test func revokeByIDReadsTheClusterAndOperatorsFiles() async throws {
        let workspace = try await Workspace()
        defer { workspace.folder.cleanup() }
        let nodeKey = try workspace.memberKey()
        let operatorKey = CurvePublicKey(bytes: [UInt8](repeating: 9, count: 32))!
        let other = (CurvePublicKey(bytes: [UInt8](repeating: 8, count: 32))!, CurvePublicKey(bytes: [UInt8](repeating: 7, count: 32))!)
        try workspace.folder.write(
            ".deploy/cluster.json",
            #"{"nodes": [{"id": "n4", "control": "tcp://127.0.0.1:1", "key": "\#(nodeKey.z85)"}, {"id": "n5", "control": "tcp://127.0.0.1:2"}, {"id": "both", "control": "tcp://127.0.0.1:3", "key": "\#(other.0.z85)"}]}"#
        )
        try workspace.folder.write(
            ".deploy/operators.json",
            #"{"operators": [{"name": "alice", "key": "\#(operatorKey.z85)", "role": "admin"}, {"name": "both", "key": "\#(other.1.z85)", "role": "viewer"}]}"#
        )
        let byNode = await workspace.sign(["revoke", "n4", "--serial", "2"])
        #expect(byNode.code == 0, "\(byNode)")
        #expect(try workspace.statement("revoke-n4-2.statement").statement.claim == .revocation(key: nodeKey))
        #expect(await workspace.sign(["revoke", "alice", "--serial", "3"]).code == 0)
        #expect(try workspace.statement("revoke-alice-3.statement").statement.claim == .revocation(key: operatorKey))

        let unknown = await workspace.sign(["revoke", "n9", "--serial", "4"])
        #expect(unknown.code == 64)
        #expect(unknown.stderr.contains("no node or operator 'n9'"), "\(unknown)")
        let ambiguous = await workspace.sign(["revoke", "both", "--serial", "4"])
        #expect(ambiguous.code == 64)
        #expect(ambiguous.stderr.contains("is both node both"), "\(ambiguous)")
        let plain = await workspace.sign(["revoke", "n5", "--serial", "4"])
        #expect(plain.code == 64)
        #expect(plain.stderr.contains("has no key"), "\(plain)")
    }

    /// verify: exit 1, with the reason, for everything a node would refuse.
    @Test func verifyRefusesWhatTheAuthorityDidNotSignAsItIs() async throws {
        let workspace = try await Workspace()
        defer { workspace.folder.cleanup() }
        #expect(await workspace.sign(["admit", "n4", "--key", workspace.path + "/keys/n4.pub", "--serial", "7"]).code == 0)
        let good = try String(contentsOfFile: workspace.path + "/admit-n4-7.statement", encoding: .utf8)
        let line = try #require(good.split(separator: "\n").first { $0.hasPrefix("statement = ") })
        let bytes = Array(try #require(Data(base64Encoded: String(line.dropFirst("statement = ".count)))))

        func verify(_ name: String, bytes: [UInt8]) async throws -> RunResult {
            try workspace.folder.write(name, "statement = \(Data(bytes).base64EncodedString())\n")
            return await workspace.verify(name)
        }
        var changed = bytes
        changed[9] ^= 1  // serial 7 → 6
        let tampered = try await verify("tampered", bytes: changed)
        #expect(tampered.code == 1)
        #expect(tampered.stderr.contains("tampered is refused: the authority's signature does not verify"), "\(tampered)")
        let unsigned = try await verify("unsigned", bytes: Array(bytes.prefix(bytes.count - 96)))
        #expect(unsigned.code == 1)
        #expect(unsigned.stderr.contains("the statement is not signed"), "\(unsigned)")
        let truncated = try await verify("truncated", bytes: Array(bytes.prefix(20)))
        #expect(truncated.code == 1)
        #expect(truncated.stderr.contains("not a statement: the bytes end inside the key"), "\(truncated)")

        let other = try TemporaryDirectory()
        defer { other.cleanup() }
        #expect(await cli(["authority", "init", "--out", other.path]).code == 0)
        let foreign = await workspace.run(["authority", "verify", "admit-n4-7.statement", "--authority", other.path + "/authority.pub"])
        #expect(foreign.code == 1)
        #expect(foreign.stderr.contains("which is not the cluster authority"), "\(foreign)")

        try workspace.folder.write("big", String(repeating: "#", count: StatementFile.maxFileBytes + 1))
        let big = await workspace.verify("big")
        #expect(big.code == 1)
        #expect(big.stderr.contains("larger than 4096 bytes"), "\(big)")
        let missing = await workspace.verify("missing")
        #expect(missing.code == 1)
        #expect(missing.stderr.contains("cannot use the statement file missing: it does not exist"), "\(missing)")
    }

    @Test func theAuthorityKeyComesFromTheEnvironmentAndMustBePrivate() async throws {
        let probe = try await Workspace()
        defer { probe.folder.cleanup() }
        let workspace = Workspace(folder: probe.folder, variables: ["REXCTL_AUTHORITY": probe.authorityKey])
        let signed = await workspace.run(["authority", "sign", "revoke", "--serial", "1", "--", try probe.memberKey().z85])
        #expect(signed.code == 0, "\(signed)")
        #expect(await workspace.run(["authority", "verify", "revoke-key-1.statement"]).code == 0)

        let none = await probe.run(["authority", "sign", "revoke", "--serial", "1", "--", try probe.memberKey().z85])
        #expect(none.code == 64)
        #expect(none.stderr.contains("pass --authority FILE (or set REXCTL_AUTHORITY)"), "\(none)")

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: probe.authorityKey)
        let exposed = await workspace.run(["authority", "sign", "revoke", "--serial", "2", "--", try probe.memberKey().z85])
        #expect(exposed.code == 1)
        #expect(exposed.stderr.contains("group or others may access it (mode 0644) — run: chmod 600"), "\(exposed)")
        let publicOnly = await probe.run([
            "authority", "sign", "revoke", "--serial", "2", "--authority", probe.authorityPub, "--", try probe.memberKey().z85,
        ])
        #expect(publicOnly.code == 1)
        #expect(publicOnly.stderr.contains("public key only"), "\(publicOnly)")
    }

    @Test(arguments: [
        (["authority"], "Missing expected argument '<verb>'"),
        (["authority", "make"], "authority expects init, sign, verify or send, not 'make'"),
        (["authority", "init"], "authority init needs --out DIR"),
        (["authority", "init", "--out", "d", "--serial", "1"], "--serial does not apply to authority init"),
        (["authority", "sign", "admit", "n4", "--key", "k"], "authority sign needs --serial N"),
        (
            ["authority", "sign", "admit", "n4", "--key", "k", "--serial", "0"],
            "--serial expects a whole number from 1 to 18446744073709551615, not '0'"
        ),
        (["authority", "sign", "admit", "n4", "--key", "k", "--serial", "+5"], "not '+5'"),
        (["authority", "sign", "admit", "n4", "--key", "k", "--serial", "18446744073709551616"], "not '18446744073709551616'"),
        (["authority", "sign", "admit", "n4", "--serial", "1"], "authority sign admit needs --key FILE"),
        (["authority", "sign", "admit", "n 4", "--key", "k", "--serial", "1"], "'n 4' is not a member id"),
        (
            ["authority", "sign", "admit", "n4", "--key", "k", "--role", "admin", "--serial", "1"],
            "--role applies to authority sign operator only"
        ),
        (["authority", "sign", "operator", "bob", "--key", "k", "--serial", "1"], "needs --role admin or --role viewer"),
        (["authority", "sign", "operator", "bob", "--key", "k", "--role", "root", "--serial", "1"], "--role viewer, not 'root'"),
        (["authority", "sign", "revoke", "n4", "--key", "k", "--serial", "1"], "--key and --role do not apply"),
        (["authority", "sign", "promote", "n4", "--serial", "1"], "expects admit, operator or revoke, not 'promote'"),
        (["authority", "sign", "admit", "--serial", "1"], "authority sign admit takes one name (got 0)"),
        (["authority", "verify"], "authority verify takes one statement FILE"),
        (["authority", "verify", "a", "b"], "(got 2 arguments)"),
        (["authority", "verify", "a", "--out", "b"], "--out does not apply to authority verify"),
    ])
    func usageErrorsExit64BeforeAnythingIsWritten(arguments: [String], message: String) async throws {
        let folder = try TemporaryDirectory()
        defer { folder.cleanup() }
        let result = await cli(arguments, environment: RexCtlEnvironment(variables: [:], currentDirectory: folder.path))
        #expect(result.code == 64, "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }
}

extension AuthorityCommandTests.Workspace {
    /// The same folder seen with other environment variables.
    init(folder: TemporaryDirectory, variables: [String: String]) {
        self.folder = folder
        environment = RexCtlEnvironment(variables: variables, currentDirectory: folder.path)
    }
}
