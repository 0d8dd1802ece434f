/// A table of aligned columns, as kubectl prints: upper-case headers, two spaces between
/// columns, numbers right-aligned, no trailing spaces.
///
/// Cells are escaped for the terminal as they are added (``TerminalText``), so a cell may be
/// any text a node sent, and the column widths are those of the text shown.
///
/// ```swift
/// var table = Table(columns: [.init("ID"), .init("OPENS", alignment: .right)])
/// table.append(["pub", "1"])
/// print(table.render())
/// // ID   OPENS
/// // pub      1
/// ```
struct Table: Sendable {
    struct Column: Sendable {
        var title: String
        var alignment: Alignment
        init(_ title: String, alignment: Alignment = .left) {
            self.title = title
            self.alignment = alignment
        }
    }

    enum Alignment: Sendable { case left, right }

    var columns: [Column]
    private(set) var rows: [[String]] = []

    init(columns: [Column]) { self.columns = columns }

    /// Adds a row, each cell escaped for the terminal; missing cells are empty, extra cells are dropped.
    mutating func append(_ row: [String]) {
        var row = row.prefix(columns.count).map(TerminalText.escaped)
        while row.count < columns.count { row.append("") }
        rows.append(row)
    }

    /// The table as lines joined by `\n`, ending with a newline.
    ///
    /// - Parameter style: bolds the header and colours status words in columns named in
    ///   `statusColumns` (only when the style is enabled; widths are computed without escapes).
    func render(style: Style = Style(isEnabled: false), statusColumns: Set<String> = []) -> String {
        var widths = columns.map(\.title.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String], header: Bool) -> String {
            var parts: [String] = []
            for (index, cell) in cells.enumerated() {
                let column = columns[index]
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                var shown = cell
                if header {
                    shown = style.bold(cell)
                } else if statusColumns.contains(column.title) {
                    shown = style.status(cell)
                }
                let isLast = index == cells.count - 1
                switch column.alignment {
                case .left: parts.append(isLast ? shown : shown + padding)
                case .right: parts.append(padding + shown)
                }
            }
            var text = parts.joined(separator: "  ")
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        var text = line(columns.map(\.title), header: true) + "\n"
        for row in rows { text += line(row, header: false) + "\n" }
        return text
    }
}
