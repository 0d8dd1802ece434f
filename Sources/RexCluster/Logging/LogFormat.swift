/// How ``NodeLogger`` writes one event: `key=value` text for people, or one JSON object per line
/// for log pipelines (`rexnode --log-format text|json`).
///
/// ```
/// text: 2026-11-29T12:00:00.123Z INFO  node=n1 event=started pub=tcp://127.0.0.1:7101
/// json: {"time":"2026-11-29T12:00:00.123Z","level":"info","node":"n1","event":"started","fields":{"pub":"tcp://127.0.0.1:7101"}}
/// ```
///
/// Field values quote what peers and operators sent (topics, endpoints, error texts), so both
/// forms escape every control character: a value can never end a line early or forge another one.
public enum LogFormat: String, Sendable, CaseIterable {
    /// `time LEVEL node=ID event=NAME key=value …`
    case text
    /// One JSON object per line.
    case json

    /// Parses `text` or `json`.
    public init?(name: String) { self.init(rawValue: name.lowercased()) }

    /// One line, ending in `\n`; fields in key order.
    public func line(
        time: String, level: NodeLogger.Level, node: String, event: String, fields: [String: String]
    ) -> String {
        let keys = fields.keys.sorted()
        switch self {
        case .text:
            var line =
                "\(time) \(level.description.uppercased().padding(to: 5)) node=\(Self.textValue(node)) event=\(Self.textValue(event))"
            for key in keys { line += " \(Self.textValue(key))=\(Self.textValue(fields[key] ?? ""))" }
            return line + "\n"
        case .json:
            var line = "{\"time\":\(Self.jsonString(time)),\"level\":\(Self.jsonString(level.description))"
            line += ",\"node\":\(Self.jsonString(node)),\"event\":\(Self.jsonString(event)),\"fields\":{"
            for (index, key) in keys.enumerated() {
                if index > 0 { line += "," }
                line += "\(Self.jsonString(key)):\(Self.jsonString(fields[key] ?? ""))"
            }
            return line + "}}\n"
        }
    }

    /// A value of the text form: bare when it is plain, else in double quotes with `"`, `\` and
    /// control characters escaped (`\n`, `\t`, `\r`, others as `\u{7f}`).
    static func textValue(_ value: String) -> String {
        let plain =
            !value.isEmpty
            && value.unicodeScalars.allSatisfy { scalar in
                scalar != " " && scalar != "\"" && scalar != "=" && scalar != "\\" && !isControl(scalar)
            }
        if plain { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where isControl(scalar): out += "\\u{\(String(scalar.value, radix: 16))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON string literal (RFC 8259): `"` and `\` escaped, every control character (C0, DEL,
    /// C1) escaped, and U+2028/U+2029 (JavaScript-based pipelines read those as line ends) and
    /// U+FEFF (some readers drop a byte-order mark) too.
    static func jsonString(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where isControl(scalar) || scalar.value == 0xFEFF:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// C0 and C1 controls, DEL, and the Unicode line and paragraph separators: what a terminal or
    /// a line-based reader would act on instead of showing.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}
