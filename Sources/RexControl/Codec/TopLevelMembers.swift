/// The raw text of the members of a JSON object's top level, without decoding them.
///
/// Exists for one rule the decoder cannot check: a protocol version is the JSON integer `1`,
/// and `JSONDecoder` reads `1.0`, `1e0` and `10e-1` as the integer 1 too. Reading the member's
/// text tells them apart. The scan is linear, iterative (no recursion, whatever the nesting)
/// and bounds-checked; it expects text that `JSONDecoder` has already accepted, and answers
/// nil for anything that is not an object.
enum TopLevelMembers {
    /// The raw text of every top-level member named `key`, in order; nil when `bytes` is not a
    /// JSON object.
    static func rawValues(named key: String, in bytes: [UInt8]) -> [String]? {
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        guard scanner.take(UInt8(ascii: "{")) else { return nil }
        var values: [String] = []
        scanner.skipWhitespace()
        if scanner.take(UInt8(ascii: "}")) { return values }
        while true {
            scanner.skipWhitespace()
            guard let name = scanner.string() else { return nil }
            scanner.skipWhitespace()
            guard scanner.take(UInt8(ascii: ":")) else { return nil }
            scanner.skipWhitespace()
            guard let value = scanner.value() else { return nil }
            if Self.name(bytes[name], equals: key) {
                values.append(String(decoding: bytes[value], as: UTF8.self))
            }
            scanner.skipWhitespace()
            if scanner.take(UInt8(ascii: ",")) { continue }
            return scanner.take(UInt8(ascii: "}")) ? values : nil
        }
    }

    /// Whether a member name, as written between its quotes, is `key`. Escapes (`"\u0076"`)
    /// are decoded, so a name cannot hide from the check by being spelled differently.
    private static func name(_ raw: ArraySlice<UInt8>, equals key: String) -> Bool {
        guard raw.contains(UInt8(ascii: "\\")) else { return raw.elementsEqual(key.utf8) }
        let quoted = [UInt8(ascii: "\"")] + Array(raw) + [UInt8(ascii: "\"")]
        return (try? ControlCodec.decode(String.self, from: quoted)) == key
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A string at `index`: the range of its contents (between the quotes).
        mutating func string() -> Range<Int>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\\"): index += 2
                case UInt8(ascii: "\""):
                    defer { index += 1 }
                    return start..<index
                default: index += 1
                }
            }
            return nil
        }

        /// Any value at `index`: its range. Containers are skipped by counting brackets
        /// outside strings.
        mutating func value() -> Range<Int>? {
            let start = index
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                guard string() != nil else { return nil }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                repeat {
                    guard index < bytes.count else { return nil }
                    switch bytes[index] {
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                        index += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        index += 1
                    case UInt8(ascii: "\""):
                        guard string() != nil else { return nil }
                    default: index += 1
                    }
                } while depth > 0
            default:
                // A number or a literal: up to the next separator.
                while index < bytes.count,
                    ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09]
                        .contains(bytes[index])
                { index += 1 }
                guard index > start else { return nil }
            }
            return index <= bytes.count ? start..<index : nil
        }
    }
}
