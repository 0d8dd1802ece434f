/// Bytes that are not a statement: what is wrong with them, as a code and a sentence.
///
/// Every decoding failure of ``SignedStatement/decode(_:)`` is one of these: the ledger counts
/// them as ``AuthorityRefusal/malformed(_:)``.
public struct StatementFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of mistake; a struct so that new codes do not break a `switch`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The bytes end inside a field.
        public static let truncated = Code(rawValue: "truncated")
        /// More bytes than any statement has (``SignedStatement/maxEncodedBytes``).
        public static let oversized = Code(rawValue: "oversized")
        /// Bytes left after the statement that are not one signature.
        public static let trailingBytes = Code(rawValue: "trailingBytes")
        /// A format version this build does not read.
        public static let unknownVersion = Code(rawValue: "unknownVersion")
        /// A kind of statement this build does not know.
        public static let unknownKind = Code(rawValue: "unknownKind")
        /// Serial 0 (serials start at 1: 0 is what a node's initial members and operators have).
        public static let invalidSerial = Code(rawValue: "invalidSerial")
        /// A member id or operator name outside 1…64 letters, digits, `-`, `_`, `.`, `@`.
        public static let invalidName = Code(rawValue: "invalidName")
        /// An operator role this build does not know.
        public static let unknownRole = Code(rawValue: "unknownRole")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
