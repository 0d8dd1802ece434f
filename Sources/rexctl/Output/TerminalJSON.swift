import RexControl

/// JSON text as `-o json` prints it: the codec's JSON, with two changes that keep every
/// reader's value the same and make the line safe and plain on a terminal.
///
/// - DEL, C1 and the bidi controls are written as `\u` escapes (RFC 8259 only requires
///   U+0000–U+001F to be escaped), so `-o json` never carries a character a terminal would act
///   on (``TerminalText/isControl(_:)``).
/// - `\/` is written `/` (the codec escapes slashes; endpoints read better without).
///
/// ```swift
/// TerminalJSON.text(Array(#"{"a":"tcp:\/\/h:1 \#u{7f}"}"#.utf8))   // {"a":"tcp://h:1 \u007f"}
/// ```
enum TerminalJSON {
    /// `json` (valid JSON text, as the codec writes it) rewritten as above.
    static func text(_ json: [UInt8]) -> String {
        var output = String.UnicodeScalarView()
        var inString = false
        var escaping = false
        for scalar in String(decoding: json, as: UTF8.self).unicodeScalars {
            if escaping {
                escaping = false
                if scalar != "/" { output.append("\\") }
                output.append(scalar)
                continue
            }
            if inString {
                switch scalar {
                case "\\":
                    escaping = true
                    continue
                case "\"":
                    inString = false
                default:
                    if TerminalText.isControl(scalar) {
                        let hex = String(scalar.value, radix: 16)
                        output.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
                        continue
                    }
                }
            } else if scalar == "\"" {
                inString = true
            }
            output.append(scalar)
        }
        return String(output)
    }
}

extension TerminalJSON {
    /// `value` as indented JSON text, two spaces a level, object keys sorted, every string
    /// written as ``text(_:)`` writes it: a state document of any feature, for people to read.
    static func indented(_ value: JSONValue) -> String {
        var output = ""
        append(value, indent: "", to: &output)
        return output + "\n"
    }

    private static func append(_ value: JSONValue, indent: String, to output: inout String) {
        let inner = indent + "  "
        switch value {
        case .object(let members) where !members.isEmpty:
            output += "{\n"
            for (index, key) in members.keys.sorted().enumerated() {
                output += inner + leaf(.string(key)) + ": "
                append(members[key]!, indent: inner, to: &output)
                output += index == members.count - 1 ? "\n" : ",\n"
            }
            output += indent + "}"
        case .array(let elements) where !elements.isEmpty:
            output += "[\n"
            for (index, element) in elements.enumerated() {
                output += inner
                append(element, indent: inner, to: &output)
                output += index == elements.count - 1 ? "\n" : ",\n"
            }
            output += indent + "]"
        default:
            output += leaf(value)
        }
    }

    private static func leaf(_ value: JSONValue) -> String {
        text((try? ControlCodec.encode(value)) ?? Array("null".utf8))
    }
}
