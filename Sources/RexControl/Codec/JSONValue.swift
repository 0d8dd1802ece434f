/// Any JSON value, for the few places the protocol carries arbitrary JSON: a request's `id`
/// (echoed as sent), `rexctl send --json` (an operator's action passed through for the node to
/// judge), and clients that address a document by path (`rexctl wait --for state=PATH=VALUE`,
/// the metrics table that lists every leaf). Everything else is a typed document.
///
/// A number keeps the text the codec writes for it (`42`, `0.04`, `1e+300`), so integers beyond
/// 2^53 survive exactly. Decoding reads an integer as one (`7.0` and `7` are both `7`).
///
/// ```swift
/// let id = try ControlCodec.decode(JSONValue.self, from: Array(#"{"b": [1, null], "a": "x"}"#.utf8))
/// id["a"]   // .string("x")
/// ```
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    /// A number, as the codec writes it.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A number holding `value`.
    public static func number(_ value: Int) -> JSONValue { .number(String(value)) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let object = try? container.decode([String: JSONValue].self) {
            self = .object(object)
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .number(String(integer))
        } else if let integer = try? container.decode(UInt64.self) {
            self = .number(String(integer))
        } else if let number = try? container.decode(Double.self) {
            self = .number("\(number)")
        } else {
            self = .array(try container.decode([JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .number(let text):
            if let integer = Int64(text) {
                try container.encode(integer)
            } else if let integer = UInt64(text) {
                try container.encode(integer)
            } else {
                // A text that is no number at all (only a hand-built value can hold one) is 0.
                try container.encode(Double(text) ?? 0)
            }
        case .string(let string): try container.encode(string)
        case .array(let elements): try container.encode(elements)
        case .object(let members): try container.encode(members)
        }
    }

    /// The member `key` of an object; nil for anything else.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The text of a string; nil for anything else.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// The value as an operator reads it: strings bare, numbers as written, `null`, `true`,
    /// `false`, and arrays and objects as `[…]` and `{…}` with their members sorted.
    public var displayText: String {
        switch self {
        case .null: "null"
        case .bool(let bool): bool ? "true" : "false"
        case .number(let text): text
        case .string(let string): string
        case .array, .object:
            (try? ControlCodec.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        }
    }
}
