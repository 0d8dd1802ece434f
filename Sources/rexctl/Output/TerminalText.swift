/// Makes text that came over the network safe to print on a terminal.
///
/// A node's topics, values, sender names, channel ids and error messages are data, but a
/// terminal acts on some characters: ESC starts a control sequence (clear the screen, set the
/// window title), BEL rings, CR rewinds the line, and the C1 range holds one-byte forms of the
/// same commands (U+009B is CSI). Bidi overrides and isolates reorder what follows them, so a
/// value could hide or fake the columns after it. Those characters are shown as visible escapes
/// instead, and a backslash is doubled so that an escape cannot be faked by sending one:
///
/// | character                                          | shown as                          |
/// |----------------------------------------------------|-----------------------------------|
/// | `\`                                                | `\\`                              |
/// | newline, carriage return, tab, ESC                 | `\n`, `\r`, `\t`, `\e`            |
/// | other C0 (U+0000–U+001F), DEL, C1 (U+0080–U+009F)  | `\u{hh}`, e.g. `\u{07}`, `\u{9b}` |
/// | bidi overrides and isolates (U+202A–E, U+2066–9)   | `\u{hhhh}`, e.g. `\u{202e}`       |
///
/// Everything else, including non-ASCII letters and emoji, is printed as it is.
///
/// ```swift
/// TerminalText.escaped("eu\u{1B}[2J.prices")   // eu\e[2J.prices
/// TerminalText.escaped(#"C:\tmp"#)            // C:\\tmp
/// ```
///
/// ``Table`` and ``FieldList`` escape every cell, and ``TextOutput/errorLine(_:)`` every error
/// message, so commands hand them node text as it arrived. `-o json` output is not escaped this
/// way: ``TerminalJSON`` escapes the same characters the JSON way (`\u001b`).
enum TerminalText {
    /// `text` with every character of the table above replaced by its escape.
    static func escaped(_ text: String) -> String {
        // Most text has nothing to escape; return it without building a copy.
        guard text.unicodeScalars.contains(where: { $0 == "\\" || isControl($0) }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{1B}": result += "\\e"
            default:
                if isControl(scalar) {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u{" + (hex.count < 2 ? "0" : "") + hex + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// Whether a terminal would act on `scalar` or let it reorder the text after it: C0 controls,
    /// DEL, C1 controls, and the bidi overrides and isolates.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
