/// A CURVE public key (Curve25519, 32 bytes) that statements admit or revoke: a member's or an
/// operator's, the key libzmq's ZAP request carries for a connecting peer.
///
/// Its text is Z85 (40 characters), as in key files, the cluster file and the operators file.
/// The authority holds keys as bytes, so one key has one text and compares by its bytes.
public struct CurvePublicKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The size of every CURVE key.
    public static let byteCount = 32

    /// The 32 raw bytes.
    public let bytes: [UInt8]

    /// A key from its 32 bytes; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// A key from its 40-character Z85 text; nil when it is not one (or not canonical Z85).
    public init?(z85 text: String) {
        guard text.utf8.count == 40, let bytes = Z85.decode(text) else { return nil }
        self.bytes = bytes
    }

    /// The 40-character Z85 text.
    public var z85: String { Z85.encode(bytes) ?? "" }

    /// The first 8 characters and an ellipsis, as rexctl and the node's logs show keys.
    public var short: String { String(z85.prefix(8)) + "…" }

    public var description: String { z85 }

    /// Byte order: the ledger lists its statements in a stable order.
    public static func < (lhs: CurvePublicKey, rhs: CurvePublicKey) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}
