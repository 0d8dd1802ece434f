/// The protocol version rule: every request and every reply carries `"v"`, and it must be the
/// JSON integer `1` — written exactly so: not `true`, not `1.0`, `1e0` or `"1"`.
///
/// `JSONDecoder` reads `1.0` and `1e0` as the integer 1, so the rule is checked on the member's
/// raw text (``TopLevelMembers``), not on a decoded value.
///
/// ```swift
/// ProtocolVersion.read(Array(#"{"v": 1, "op": "ping"}"#.utf8))   // .current
/// ProtocolVersion.read(Array(#"{"v": 1.0}"#.utf8))               // .notAnInteger("1.0")
/// ```
public enum ProtocolVersion {
    /// The version this code speaks and writes.
    public static let current = 1

    /// What a document says its version is.
    public enum Reading: Sendable, Equatable {
        /// `"v": 1`.
        case current
        /// Another integer: a version this code does not speak.
        case unsupported(Int)
        /// No `"v"` member.
        case missing
        /// A `"v"` that is no integer (or one too large for an `Int`), as written.
        case notAnInteger(String)
        /// More than one `"v"` member: which one a reader takes is not defined, so none is.
        case repeated
        /// The document is not a JSON object.
        case notAnObject
    }

    /// Reads the version of a JSON document (a request or a reply).
    public static func read(_ document: [UInt8]) -> Reading {
        guard let values = TopLevelMembers.rawValues(named: "v", in: document) else { return .notAnObject }
        guard let text = values.first else { return .missing }
        guard values.count == 1 else { return .repeated }
        guard isIntegerLiteral(text), let version = Int(text) else { return .notAnInteger(text) }
        return version == current ? .current : .unsupported(version)
    }

    /// `-?(0|[1-9][0-9]*)`: an integer as JSON writes one, with no fraction or exponent.
    private static func isIntegerLiteral(_ text: String) -> Bool {
        let digits = text.utf8.first == UInt8(ascii: "-") ? text.utf8.dropFirst() : text.utf8[...]
        guard let first = digits.first, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return false }
        return first != UInt8(ascii: "0") || digits.count == 1
    }
}
