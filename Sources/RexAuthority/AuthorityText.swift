/// The text form of the authority's files: `name = value` lines, `#` comments and blank lines,
/// as in the CURVE key files `rexctl keygen` writes.
enum AuthorityText {
    struct Line {
        /// 1-based, for messages.
        var number: Int
        var name: String
        var value: String
    }

    /// The `name = value` lines of `bytes`, each name one of `names`.
    ///
    /// - Throws: ``AuthorityFileError`` for text that is not UTF-8, a line that is not
    ///   `name = value`, or a name not in `names` (a CURVE key file is named as such).
    static func lines(_ bytes: [UInt8], names: Set<String>, kind: String) throws(AuthorityFileError) -> [Line] {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw AuthorityFileError("it is not UTF-8 text") }
        var lines: [Line] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw AuthorityFileError("line \(index + 1) is not 'name = value'")
            }
            let name = String(line[..<equals]).trimmingSpaces
            let value = String(line[line.index(after: equals)...]).trimmingSpaces
            guard names.contains(name) else {
                if name == "public-key" || name == "secret-key" {
                    throw AuthorityFileError("it is a CURVE key file (rexctl keygen), not \(kind)")
                }
                let known = names.sorted().joined(separator: ", ")
                throw AuthorityFileError("line \(index + 1) names '\(name.prefix(32))'; \(kind) has \(known)")
            }
            lines.append(Line(number: index + 1, name: name, value: value))
        }
        return lines
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and carriage returns.
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
