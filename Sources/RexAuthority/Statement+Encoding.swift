import RexControl

/// A statement's canonical bytes: what the authority signs and what travels and is stored.
///
/// ```
/// version  u8 = 1
/// kind     u8: 1 member, 2 operator, 3 revocation
/// serial   u64, big-endian, ≥ 1
/// key      32 bytes (the CURVE public key the statement is about)
/// member:     id length u8 (1…64), id (ASCII letters, digits, - _ . @)
/// operator:   role u8 (1 admin, 2 viewer), name length u8 (1…64), name
/// revocation: nothing
/// ```
///
/// One statement has exactly one encoding and the decoder reads back only that encoding
/// (fixed widths, no optional fields), so equal statements are equal bytes.
extension Statement {
    /// The format version written and the only one read.
    static let formatVersion: UInt8 = 1

    /// The bytes in front of a statement in the message its signature covers: a signature on
    /// a statement cannot be taken for a signature on anything else the project may sign.
    static let signatureContext: [UInt8] = Array("rex.authority.statement.v1".utf8) + [0]

    private enum Kind: UInt8 {
        case member = 1
        case `operator` = 2
        case revocation = 3
    }

    private static func roleByte(_ role: OperatorRole) -> UInt8 {
        switch role {
        case .admin: return 1
        case .viewer: return 2
        }
    }

    /// The canonical bytes (at most ``Statement/maxEncodedBytes``).
    public var encoded: [UInt8] {
        var bytes: [UInt8] = [Self.formatVersion]
        func header(_ kind: Kind, _ key: CurvePublicKey) {
            bytes.append(kind.rawValue)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: serial >> UInt64(shift))) }
            bytes += key.bytes
        }
        switch claim {
        case .member(let id, let key):
            header(.member, key)
            bytes.append(UInt8(id.utf8.count))
            bytes += id.utf8
        case .operator(let name, let key, let role):
            header(.operator, key)
            bytes.append(Self.roleByte(role))
            bytes.append(UInt8(name.utf8.count))
            bytes += name.utf8
        case .revocation(let key):
            header(.revocation, key)
        }
        return bytes
    }

    /// The most bytes a statement encodes to: an operator statement with a 64-byte name.
    public static let maxEncodedBytes = 2 + 8 + CurvePublicKey.byteCount + 2 + maxNameBytes

    /// What the authority's signature covers: ``signatureContext`` then ``encoded``.
    var signedMessage: [UInt8] { Self.signatureContext + encoded }

    /// Reads one statement from `reader` (which may hold more bytes after it).
    static func read(from reader: inout ByteReader) throws(StatementFormatError) -> Statement {
        let version = try reader.byte("version")
        guard version == formatVersion else {
            throw StatementFormatError(.unknownVersion, "format version \(version) is not read here (only \(formatVersion))")
        }
        let kindByte = try reader.byte("kind")
        guard let kind = Kind(rawValue: kindByte) else {
            throw StatementFormatError(.unknownKind, "kind \(kindByte) is not a statement kind (1 member, 2 operator, 3 revocation)")
        }
        let serial = try reader.uint64("serial")
        // take(32) returns exactly 32 bytes, so the key always builds.
        let key = CurvePublicKey(bytes: try reader.take(CurvePublicKey.byteCount, "key"))!
        switch kind {
        case .member:
            return try Statement(serial: serial, claim: .member(id: try name(from: &reader, "member id"), key: key))
        case .operator:
            let roleByte = try reader.byte("role")
            let role: OperatorRole
            switch roleByte {
            case 1: role = .admin
            case 2: role = .viewer
            default: throw StatementFormatError(.unknownRole, "role \(roleByte) is not a role (1 admin, 2 viewer)")
            }
            return try Statement(serial: serial, claim: .operator(name: try name(from: &reader, "operator name"), key: key, role: role))
        case .revocation:
            return try Statement(serial: serial, claim: .revocation(key: key))
        }
    }

    private static func name(from reader: inout ByteReader, _ field: String) throws(StatementFormatError) -> String {
        let count = Int(try reader.byte("\(field) length"))
        let bytes = try reader.take(count, field)
        // isValidName (checked by init) admits ASCII only, so a non-ASCII byte fails there.
        return String(decoding: bytes, as: UTF8.self)
    }
}
