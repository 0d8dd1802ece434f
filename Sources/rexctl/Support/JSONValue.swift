/// A JSON document that keeps what the node sent: object members in their original order and
/// numbers as their literal text, so `-o json` prints exactly what the node answered.
///
/// ```swift
/// let value = try JSONValue.parse(#"{"ok": true, "result": {"ageMs": 3900}}"#)
/// value["result"]?["ageMs"]?.intValue   // 3900
/// value.compactText                    // {"ok":true,"result":{"ageMs":3900}}
/// ```
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number, as its JSON literal (`42`, `0.04`, `-1e3`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([Member])

    /// One member of an object, in document order.
    struct Member: Sendable, Equatable {
        var key: String
        var value: JSONValue
    }

    /// The member named `key` of an object (the first, if repeated); nil otherwise.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The members of an object, or nil.
    var members: [Member]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements of an array, or nil.
    var elements: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    var boolValue: Bool? {
        if case .bool(let bool) = self { return bool }
        return nil
    }

    var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// A whole number within ±(2^53 − 1) (`42`, `4.0`, `1e3`), the integers JSON carries
    /// exactly; nil for anything else. Node counters are hostile input: bounding them here
    /// means sums and differences of a few of them can never overflow an `Int`.
    var intValue: Int? {
        guard case .number(let text) = self else { return nil }
        let exact = -Formatting.maxExactInteger...Formatting.maxExactInteger
        if let int = Int64(text) { return exact.contains(int) ? Int(int) : nil }
        guard let double = Double(text), double.rounded() == double, let whole = Formatting.wholeNumber(double)
        else { return nil }
        return Int(whole)
    }

    var isNull: Bool { self == .null }

    /// The value as an operator reads it: strings bare, numbers as written, `null`, `true`, compact JSON otherwise.
    var displayText: String {
        switch self {
        case .string(let string): return string
        case .number(let text): return text
        case .bool(let bool): return bool ? "true" : "false"
        case .null: return "null"
        case .array, .object: return compactText
        }
    }

    /// Builds an object from key/value pairs, in order.
    static func object(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(pairs.map { Member(key: $0.key, value: $0.value) })
    }
}

// MARK: serializing

extension JSONValue {
    /// One-line JSON text with no insignificant whitespace and no raw control characters
    /// (``TerminalText/isControl(_:)`` characters are written as `\u` escapes).
    var compactText: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let bool): output += bool ? "true" : "false"
        case .number(let text): output += text
        case .string(let string): JSONValue.writeString(string, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                JSONValue.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            default:
                // RFC 8259 requires only U+0000–U+001F to be escaped; DEL, C1 and the bidi
                // controls are escaped too, so `-o json` never carries a character a terminal
                // would act on (the value stays the same for any JSON reader).
                if TerminalText.isControl(scalar) {
                    let hex = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }
}

// MARK: parsing

/// Why a text is not JSON, with the byte offset where reading stopped.
struct JSONParseError: Error, Equatable, CustomStringConvertible {
    var message: String
    var offset: Int
    var description: String { "\(message) at offset \(offset)" }
}

extension JSONValue {
    /// Parses one JSON document (RFC 8259); surrounding whitespace is allowed, trailing text is not.
    static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Parses one JSON document from UTF-8 bytes.
    static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the document") }
        return value
    }
}

private struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    static let maxDepth = 512

    init(bytes: [UInt8]) { self.bytes = bytes }

    func error(_ message: String) -> JSONParseError { JSONParseError(message: message, offset: index) }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    mutating func expect(_ literal: String, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let literalBytes = Array(literal.utf8)
        guard index + literalBytes.count <= bytes.count,
              Array(bytes[index..<index + literalBytes.count]) == literalBytes
        else { throw error("expected '\(literal)'") }
        index += literalBytes.count
        return value
    }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < JSONParser.maxDepth else { throw error("nested too deeply") }
        guard let byte = peek else { throw error("unexpected end of text") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(Character(Unicode.Scalar(byte)))'")
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var members: [JSONValue.Member] = []
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw error("expected a member name in quotes") }
            let key = try parseString()
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth + 1)
            members.append(.init(key: key, value: value))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: throw error("expected ',' or '}' in an object")
            }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: throw error("expected ',' or ']' in an array")
            }
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        func digits(_ parser: inout JSONParser) -> Int {
            var count = 0
            while let byte = parser.peek, byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                parser.index += 1
                count += 1
            }
            return count
        }
        if peek == UInt8(ascii: "-") { index += 1 }
        if peek == UInt8(ascii: "0") {
            index += 1
        } else if digits(&self) == 0 {
            throw error("expected a digit")
        }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw error("expected a digit after '.'") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw error("expected a digit in the exponent") }
        }
        return .number(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("bad hex digit in \\u escape")
            }
            value = value * 16 + UInt32(digit)
            index += 1
        }
        return value
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flushRun(_ parser: JSONParser, _ scalars: inout String.UnicodeScalarView, _ runStart: Int) {
            if runStart < parser.index {
                scalars.append(contentsOf: String(decoding: parser.bytes[runStart..<parser.index], as: UTF8.self).unicodeScalars)
            }
        }
        while true {
            guard let byte = peek else { throw error("unterminated string") }
            if byte == UInt8(ascii: "\"") {
                flushRun(self, &scalars, runStart)
                index += 1
                return String(scalars)
            }
            if byte < 0x20 { throw error("control character in a string") }
            if byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            flushRun(self, &scalars, runStart)
            index += 1
            guard let escape = peek else { throw error("unterminated escape") }
            index += 1
            switch escape {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                    else { throw error("unpaired surrogate in \\u escape") }
                    index += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                scalars.append(scalar)
            default: throw error("unknown escape '\\\(Character(Unicode.Scalar(escape)))'")
            }
            runStart = index
        }
    }
}
