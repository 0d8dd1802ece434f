/// Renders `--help` pages and the usage lines of errors from ``CommandSpec`` values.
///
/// The layout follows argument-parser's: `OVERVIEW:`, `USAGE:`, `ARGUMENTS:`, `OPTIONS:`,
/// labels in a 24-column field after a 2-space indent, help wrapped at 80 columns.
enum HelpFormatter {
    static let width = 80
    static let indent = 2
    static let labelWidth = 24
    static let toolName = "rexctl"

    /// The root page: overview, usage, global options, the subcommand table.
    static func rootHelp(abstract: String, discussion: String?, commands: [CommandSpec], globals: [OptionSpec]) -> String {
        var text = "OVERVIEW: \(abstract)\n\n"
        if let discussion { text += discussion + "\n\n" }
        text += "USAGE: \(rootUsage)\n\n"
        text += "GLOBAL OPTIONS:\n"
        text += rows(globals.map { ($0.label, $0.help) } + [(OptionSpec.help.label, OptionSpec.help.help)])
        text += "\nSUBCOMMANDS:\n"
        text += rows(commands.map { ($0.name, $0.abstract) })
        text += "\n  See '\(toolName) help <subcommand>' for detailed help.\n"
        return text
    }

    /// A subcommand's page.
    static func help(for command: CommandSpec, globals: [OptionSpec]) -> String {
        var text = "OVERVIEW: \(command.abstract)\n\n"
        if let discussion = command.discussion { text += discussion + "\n\n" }
        text += "USAGE: \(wrappedUsage(for: command))\n"
        for extra in command.extraUsage {
            text += String(repeating: " ", count: "USAGE: ".count) + "\(toolName) \(command.name) \(extra)\n"
        }
        if !command.arguments.isEmpty {
            text += "\nARGUMENTS:\n"
            text += rows(command.arguments.map { ("<\($0.name)>" + ($0.isVariadic ? " ..." : ""), $0.help) })
        }
        text += "\nOPTIONS:\n"
        text += rows(command.options.map { ($0.label, $0.help) } + [(OptionSpec.help.label, OptionSpec.help.help)])
        text += "\nGLOBAL OPTIONS:\n"
        text += rows(globals.map { ($0.label, $0.help) })
        return text
    }

    static var rootUsage: String { "\(toolName) <subcommand> [<arguments>] [<global options>]" }

    /// `rexctl keep [<node>] [--all] [--watch] [<global options>]`.
    static func usage(for command: CommandSpec) -> String {
        let synopsis = command.usageSynopsis
        return "\(toolName) \(command.name)" + (synopsis.isEmpty ? "" : " \(synopsis)") + " [<global options>]"
    }

    /// The usage line wrapped at ``width`` between bracket groups, continuation lines aligned
    /// under the first argument.
    static func wrappedUsage(for command: CommandSpec) -> String {
        let lead = "\(toolName) \(command.name)"
        let continuation = String(repeating: " ", count: "USAGE: ".count + lead.count + 1)
        var groups: [String] = []
        for argument in command.arguments {
            let text = "<\(argument.name)>" + (argument.isVariadic ? " ..." : "")
            groups.append(argument.isOptional ? "[\(text)]" : text)
        }
        for option in command.options {
            var text = option.key
            if let valueName = option.valueName { text += " <\(valueName)>" }
            if option.isRepeating { text += " ..." }
            groups.append(option.isRequired ? text : "[\(text)]")
        }
        groups.append("[<global options>]")
        var lines: [String] = []
        var current = lead
        var currentWidth = "USAGE: ".count + lead.count
        for group in groups {
            if currentWidth + 1 + group.count > width {
                lines.append(current)
                current = continuation + group
                currentWidth = continuation.count + group.count
            } else {
                current += " " + group
                currentWidth += 1 + group.count
            }
        }
        lines.append(current)
        return lines.joined(separator: "\n")
    }

    /// The two lines printed after an `Error:` line.
    static func usageHint(for command: CommandSpec?) -> String {
        if let command {
            return "Usage: \(usage(for: command))\n  See '\(toolName) \(command.name) --help' for more information.\n"
        }
        return "Usage: \(rootUsage)\n  See '\(toolName) --help' for more information.\n"
    }

    /// Label/help rows: label padded to the column, help wrapped; long labels get their own line.
    static func rows(_ rows: [(label: String, help: String)]) -> String {
        var text = ""
        let column = indent + labelWidth
        for row in rows {
            let lead = String(repeating: " ", count: indent) + row.label
            let lines = wrap(row.help, width: width - column)
            if lead.count + 2 <= column {
                text += lead + String(repeating: " ", count: column - lead.count) + (lines.first ?? "") + "\n"
            } else {
                text += lead + "\n"
                text += String(repeating: " ", count: column) + (lines.first ?? "") + "\n"
            }
            for line in lines.dropFirst() {
                text += String(repeating: " ", count: column) + line + "\n"
            }
        }
        return text
    }

    /// Greedy word wrap.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }
}
