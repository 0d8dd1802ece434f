public import RexControl

/// One thing the cluster authority states about a key, with a serial number: "member ID has
/// CURVE key K", "operator NAME has key K and role R", "key K is revoked".
///
/// Every statement is about one key (its ``key``); a node keeps, per key, the statement with
/// the highest serial it accepted, and a revocation for good (see ``AuthorityLedger``). Serials
/// start at 1: the members and operators a node starts with (its cluster and operators files)
/// count as serial 0, so any statement about their keys replaces them.
///
/// A value is always valid: ``init(serial:claim:)`` checks the serial and the names, so every
/// statement has its canonical bytes (``encoded``).
public struct Statement: Sendable, Hashable, CustomStringConvertible {
    /// What is stated.
    public enum Claim: Sendable, Hashable {
        /// Member `id` (a node) authenticates with CURVE key `key`. A member may hold several
        /// keys at once (while it rotates): each is its own statement.
        case member(id: String, key: CurvePublicKey)
        /// Operator `name` authenticates with `key` on the control endpoint, with `role`.
        case `operator`(name: String, key: CurvePublicKey, role: OperatorRole)
        /// `key` is revoked: no member or operator may use it again.
        case revocation(key: CurvePublicKey)
    }

    /// The longest member id or operator name, in bytes (a membership id's limit too).
    public static let maxNameBytes = 64

    /// Orders statements about the same key: a node accepts only a higher one.
    public let serial: UInt64
    /// What is stated about ``key``.
    public let claim: Claim

    /// A statement.
    ///
    /// - Throws: ``StatementFormatError`` for serial 0 or a name outside 1…64 letters, digits,
    ///   `-`, `_`, `.`, `@`.
    public init(serial: UInt64, claim: Claim) throws(StatementFormatError) {
        guard serial > 0 else {
            throw StatementFormatError(.invalidSerial, "serial 0 is not allowed (serials start at 1)")
        }
        switch claim {
        case .member(let name, _), .operator(let name, _, _):
            guard Self.isValidName(name) else {
                throw StatementFormatError(
                    .invalidName, "'\(name.prefix(Self.maxNameBytes))' is not 1 to 64 letters, digits, '-', '_', '.' or '@'")
            }
        case .revocation:
            break
        }
        self.serial = serial
        self.claim = claim
    }

    /// The key the statement is about.
    public var key: CurvePublicKey {
        switch claim {
        case .member(_, let key), .operator(_, let key, _), .revocation(let key): return key
        }
    }

    /// Whether this statement revokes its key.
    public var isRevocation: Bool {
        if case .revocation = claim { return true }
        return false
    }

    /// One line: `member n4 has key rq:rM>}U… (serial 7)`.
    public var description: String {
        switch claim {
        case .member(let id, let key): return "member \(id) has key \(key.short) (serial \(serial))"
        case .operator(let name, let key, let role):
            return "operator \(name) has key \(key.short) and role \(role.rawValue) (serial \(serial))"
        case .revocation(let key): return "key \(key.short) is revoked (serial \(serial))"
        }
    }

    /// Whether `name` may be a member id or an operator name: 1…64 ASCII letters, digits, `-`,
    /// `_`, `.`, `@` (what a log line and a terminal show as it is).
    public static func isValidName(_ name: String) -> Bool {
        (1...maxNameBytes).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default:
                    return "-_.@".utf8.contains(byte)
                }
            }
    }
}
