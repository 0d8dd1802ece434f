/// Label/value lines with the values aligned in one column, as `describe` and the head of
/// `state` print them.
///
/// Like ``Table`` cells, labels and values are escaped for the terminal as they are added
/// (``TerminalText``) and aligned on the escaped text, so both may come from a node.
///
/// ```swift
/// var fields = FieldList(labelSuffix: ":")
/// fields.append("Channel", "follow[prices]")
/// fields.append("Reset key", "eu.prices")
/// print(fields.render())
/// // Channel:    follow[prices]
/// // Reset key:  eu.prices
/// ```
struct FieldList: Sendable {
    struct Field: Sendable {
        var label: String
        var value: String
        /// Coloured as a status word (``Style/status(_:)``) when the style is enabled.
        var isStatus: Bool
    }

    /// Printed right after each label (`":"`, or nothing).
    var labelSuffix: String
    private(set) var fields: [Field] = []

    init(labelSuffix: String = "") { self.labelSuffix = labelSuffix }

    /// Adds a line, its label and value escaped for the terminal.
    mutating func append(_ label: String, _ value: String, isStatus: Bool = false) {
        fields.append(Field(label: TerminalText.escaped(label), value: TerminalText.escaped(value), isStatus: isStatus))
    }

    /// One line per field, values two spaces after the longest label; each line ends with a newline.
    func render(style: Style = Style(isEnabled: false)) -> String {
        let width = (fields.map { $0.label.count + labelSuffix.count }.max() ?? 0) + 2
        var text = ""
        for field in fields {
            let lead = field.label + labelSuffix
            text +=
                lead + String(repeating: " ", count: width - lead.count)
                + (field.isStatus ? style.status(field.value) : field.value) + "\n"
        }
        return text
    }
}
