import Foundation
import RexAuthority
import RexControl
import Testing

/// The authority's files: the key pair, a statement, and a node's ledger in its data directory.
@Suite struct AuthorityFilesTests {
    // MARK: key files

    @Test func aKeyFileRoundTripsAndItsPublicHalfHasNoSecret() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let secret = AuthorityKeyFile(signingKey: Fixture.authority).encoded(comment: "test")
        let path = try folder.write("authority.key", Array(secret.utf8))
        let read = try AuthorityKeyFile.read(path: path, requiringSecret: true)
        #expect(read.publicKey == Fixture.authority.publicKey)
        #expect(read.signingKey?.exportSeed() == Fixture.authority.exportSeed())

        let publicText = AuthorityKeyFile(publicKey: Fixture.authority.publicKey).encoded(comment: "test")
        #expect(!publicText.contains("seed"))
        let publicPath = try folder.write("authority.pub", Array(publicText.utf8), mode: 0o644)
        #expect(try AuthorityKeyFile.read(path: publicPath, requiringSecret: false).signingKey == nil)
        #expect(message { try AuthorityKeyFile.read(path: publicPath, requiringSecret: true) }?.contains("public key only") == true)
    }

    @Test func aSigningKeyOthersMayReadIsRefused() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let text = AuthorityKeyFile(signingKey: Fixture.authority).encoded(comment: "test")
        let path = try folder.write("authority.key", Array(text.utf8), mode: 0o640)
        let error = message { try AuthorityKeyFile.read(path: path, requiringSecret: true) }
        #expect(error?.contains("mode 0640") == true)
        #expect(error?.contains("chmod 600") == true)
    }

    @Test func foreignAndDamagedKeyFilesAreRefusedWithTheirReason() throws {
        let curve = KeyFile(publicKey: Fixture.curveKey(1).z85, secretKey: Fixture.curveKey(2).z85).encoded(comment: "keygen")
        #expect(message { try AuthorityKeyFile.parse(Array(curve.utf8)) }?.contains("CURVE key file") == true)

        // Another key's seed under the authority's public key.
        let other = AuthorityKeyFile(signingKey: Fixture.intruder).encoded(comment: "x")
        let seedLine = other.split(separator: "\n").first { $0.hasPrefix("authority-secret-seed") }!
        let mixed = "authority-public-key = \(Fixture.authority.publicKey.z85)\n\(seedLine)\n"
        #expect(message { try AuthorityKeyFile.parse(Array(mixed.utf8)) }?.contains("does not belong") == true)

        #expect(message { try AuthorityKeyFile.parse(Array("authority-public-key = short\n".utf8)) }?.contains("40 Z85") == true)
        #expect(message { try AuthorityKeyFile.parse(Array("# nothing\n".utf8)) }?.contains("no authority-public-key") == true)
        #expect(message { try AuthorityKeyFile.parse([0xFF, 0xFE]) }?.contains("UTF-8") == true)
        #expect(message { try AuthorityKeyFile.parse([UInt8](repeating: 0x23, count: 5000)) }?.contains("larger") == true)
        // And a CURVE key file reader does not take an authority key file for its own.
        #expect(throws: SecurityFileError.self) { try KeyFile.parse(Array(other.utf8)) }
    }

    // MARK: statement files

    @Test func aStatementFileRoundTrips() throws {
        let signed = Fixture.signed(Fixture.member("n4", 4, serial: 7))
        let text = StatementFile.encoded(signed, comment: signed.description)
        #expect(try SignedStatement.decode(StatementFile.parse(Array(text.utf8))) == signed)
        #expect(message { try StatementFile.parse(Array((text + text).utf8)) }?.contains("2 statement lines") == true)
        #expect(message { try StatementFile.parse(Array("statement = !!!\n".utf8)) }?.contains("not base64") == true)
        #expect(message { try StatementFile.parse(Array("# empty\n".utf8)) }?.contains("no statement") == true)
    }

    // MARK: the ledger file

    func sampleLedger() -> AuthorityLedger {
        var ledger = AuthorityLedger(authority: Fixture.authority.publicKey)
        for statement in [
            Fixture.member("n4", 4, serial: 1), Fixture.operator("bob", 5, .viewer, serial: 2), Fixture.revocation(6, serial: 3),
        ] {
            _ = ledger.receive(Fixture.signed(statement))
        }
        return ledger
    }

    @Test func aLedgerSurvivesSaveAndLoad() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let ledger = sampleLedger()
        try AuthorityLedgerFile.save(ledger, directory: folder.path)
        let loaded = try AuthorityLedgerFile.load(directory: folder.path, authority: Fixture.authority.publicKey)
        #expect(loaded.statements == ledger.statements)
        #expect(loaded.policy() == ledger.policy())
        #expect(loaded.counters == AuthorityCounters())
        let mode = try FileManager.default.attributesOfItem(atPath: AuthorityLedgerFile.path(in: folder.path))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(!FileManager.default.fileExists(atPath: AuthorityLedgerFile.path(in: folder.path) + ".tmp"))

        // Saving again replaces the file.
        var grown = loaded
        _ = grown.receive(Fixture.signed(Fixture.member("n7", 7, serial: 4)))
        try AuthorityLedgerFile.save(grown, directory: folder.path)
        #expect(try AuthorityLedgerFile.load(directory: folder.path, authority: Fixture.authority.publicKey).count == 4)
    }

    @Test func noFileIsAnEmptyLedger() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        #expect(try AuthorityLedgerFile.load(directory: folder.path, authority: Fixture.authority.publicKey).count == 0)
    }

    /// A damaged or changed file is an error naming what is wrong, never a partial ledger.
    @Test func aCorruptLedgerFileIsAClearError() throws {
        let good = String(decoding: AuthorityLedgerFile.encoded(sampleLedger()), as: UTF8.self)
        var lines = good.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let statementLine = lines.firstIndex { $0.hasPrefix("statement") }!

        func error(_ text: String) -> String? {
            message { try AuthorityLedgerFile.decode(Array(text.utf8), authority: Fixture.authority.publicKey) }
        }
        #expect(error(good) == nil)
        // Cut in the middle of a statement line.
        #expect(error(String(good.prefix(good.count - 20)))?.contains("line 5") == true)
        // One base64 character changed in a statement: its signature no longer verifies.
        var changed = lines
        let base64 = Array(changed[statementLine])
        let position = base64.count - 30
        changed[statementLine] = String(base64[..<position]) + (base64[position] == "A" ? "B" : "A") + String(base64[(position + 1)...])
        #expect(error(changed.joined(separator: "\n"))?.contains("signature") == true)
        // A line repeated: the ledger refuses the replay, so the file was not written by a node.
        var repeated = lines
        repeated.insert(lines[statementLine], at: statementLine)
        #expect(error(repeated.joined(separator: "\n"))?.contains("replay") == true)
        // Kept for another authority.
        let otherAuthority = good.replacingOccurrences(of: Fixture.authority.publicKey.z85, with: Fixture.intruder.publicKey.z85)
        #expect(error(otherAuthority)?.contains("this node's authority is") == true)
        // No authority line, not base64, a foreign line.
        lines.remove(at: 1)
        #expect(error(lines.joined(separator: "\n"))?.contains("does not start with an authority line") == true)
        #expect(error(good + "statement = %%%\n")?.contains("not base64") == true)
        #expect(error(good + "public-key = x\n")?.contains("CURVE key file") == true)
        #expect(error(good + "authority = \(Fixture.authority.publicKey.z85)\n")?.contains("second authority") == true)
    }

    @Test func anOversizedLedgerFileIsRefusedBeforeItIsParsed() throws {
        let folder = try TemporaryFolder()
        defer { folder.cleanup() }
        let limit = AuthorityLedgerFile.maxFileBytes(maxEntries: 2)
        try folder.write(AuthorityLedgerFile.fileName, [UInt8](repeating: 0x23, count: limit + 1))
        let error = message { try AuthorityLedgerFile.load(directory: folder.path, authority: Fixture.authority.publicKey, maxEntries: 2) }
        #expect(error?.contains("larger than \(limit) bytes") == true)
        // A ledger file that is a folder.
        try FileManager.default.createDirectory(
            atPath: folder.path + "/d/" + AuthorityLedgerFile.fileName, withIntermediateDirectories: true)
        #expect(
            message { try AuthorityLedgerFile.load(directory: folder.path + "/d", authority: Fixture.authority.publicKey) }?
                .contains("not a regular file") == true)
    }

    /// The message of the AuthorityFileError `body` throws (nil: none thrown).
    private func message<T>(_ body: () throws -> T) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as AuthorityFileError {
            return error.message
        } catch {
            return "unexpected error \(error)"
        }
    }
}
