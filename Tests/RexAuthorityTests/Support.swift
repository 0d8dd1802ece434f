import Foundation
import RexAuthority
import RexControl
import SharedTestSupport

/// Fixed keys, so every run signs the same bytes.
enum Fixture {
    /// The cluster authority of the tests.
    static let authority = signingKey(1)
    /// Another Ed25519 key: a member or an operator trying to sign its own statements.
    static let intruder = signingKey(2)

    static func signingKey(_ number: UInt8) -> AuthoritySigningKey {
        // A 32-byte seed always makes a key.
        try! AuthoritySigningKey(seed: [UInt8](repeating: number, count: 32))
    }

    /// A CURVE public key whose bytes are all `number` (the ledger never uses a key as a point).
    static func curveKey(_ number: UInt8) -> CurvePublicKey {
        CurvePublicKey(bytes: [UInt8](repeating: number, count: 32))!
    }

    static func member(_ id: String, _ key: UInt8, serial: UInt64) -> Statement {
        try! Statement(serial: serial, claim: .member(id: id, key: curveKey(key)))
    }

    static func `operator`(_ name: String, _ key: UInt8, _ role: OperatorRole, serial: UInt64) -> Statement {
        try! Statement(serial: serial, claim: .operator(name: name, key: curveKey(key), role: role))
    }

    static func revocation(_ key: UInt8, serial: UInt64) -> Statement {
        try! Statement(serial: serial, claim: .revocation(key: curveKey(key)))
    }

    static func signed(_ statement: Statement, by key: AuthoritySigningKey = authority) -> SignedStatement {
        key.sign(statement)
    }
}

/// A folder of its own under the temporary directory, removed by `cleanup()`.
struct TemporaryFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "rexauthority-tests-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `bytes` to `name` in the folder with `mode`.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8], mode: Int = 0o600) throws -> String {
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
        return file
    }

    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

extension AuthorityLedger.Outcome {
    var refusal: AuthorityRefusal? {
        if case .refused(let refusal) = self { return refusal }
        return nil
    }

    var change: AuthorityChange? {
        if case .accepted(let change) = self { return change }
        return nil
    }
}

extension Array where Element == UInt8 {
    init(hex: String) {
        let digits = Array(hex.utf8)
        self = stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }
}
