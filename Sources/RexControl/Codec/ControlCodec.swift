import Foundation

/// The control protocol's one JSON codec: every request, reply and document node and CLI
/// exchange is encoded and decoded here, so both sides write the same bytes for the same value.
///
/// Keys are sorted, so a document's text depends only on its value (scripts can diff replies,
/// goldens can pin them). Encoding is Foundation's `JSONEncoder` with no other option set: `/`
/// is written `\/`, control characters below U+0020 as `\uXXXX` or their short escapes, every
/// other character as UTF-8.
///
/// ```swift
/// let bytes = try ControlCodec.encode(PingDocument(node: "n1", uptimeMs: 5, pub: "p", control: "c", pid: 1))
/// let ping = try ControlCodec.decode(PingDocument.self, from: bytes)
/// ```
public enum ControlCodec {
    /// The JSON text of `value`, keys sorted.
    ///
    /// - Throws: `EncodingError` for a value JSON cannot carry (a non-finite number).
    public static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(value))
    }

    /// The value a JSON text holds.
    ///
    /// - Throws: `DecodingError` when the text is not JSON or not such a value, or the error a
    ///   type's own decoder throws.
    public static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws -> Value {
        try JSONDecoder().decode(type, from: Data(bytes))
    }
}
