/// A plain-text table with aligned columns: text left, numbers right.
struct Table {
    let title: String
    let header: [String]
    var rows: [[String]] = []
    /// Columns aligned to the left (the rest align right).
    var leftAligned: Set<Int> = [0]
    var notes: [String] = []

    init(_ title: String, header: [String]) {
        self.title = title
        self.header = header
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        let all = [header] + rows
        var widths = Array(repeating: 0, count: header.count)
        for row in all {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ row: [String]) -> String {
            row.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return leftAligned.contains(i) ? cell + pad : pad + cell
            }.joined(separator: "   ")
        }
        let rule = String(repeating: "─", count: widths.reduce(0, +) + 3 * (widths.count - 1))
        var out = "\n\(title)\n\(rule)\n\(line(header))\n\(rule)\n"
        for row in rows { out += line(row) + "\n" }
        out += rule + "\n"
        for note in notes { out += "  \(note)\n" }
        return out
    }

    func print() { Swift.print(render(), terminator: "") }
}
