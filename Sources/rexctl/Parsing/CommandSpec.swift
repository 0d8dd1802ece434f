/// The declaration of one command: the single source for both parsing and help.
///
/// Every subcommand type publishes a `CommandSpec` (like argument-parser's `configuration` plus
/// its property wrappers). ``ArgumentScanner`` reads argv against it and ``HelpFormatter``
/// renders `--help` from it, so the two can never disagree.
struct CommandSpec: Sendable {
    /// The word typed after `rexctl`, e.g. `keep`.
    var name: String
    /// One line for the subcommand list and the OVERVIEW.
    var abstract: String
    /// Further paragraphs for `--help` (already wrapped by hand; printed as is).
    var discussion: String? = nil
    /// Positional arguments, in order. Only the last may be variadic; optional ones come last.
    var arguments: [ArgumentSpec] = []
    /// Options and flags of this command (the global ones are added by the scanner).
    var options: [OptionSpec] = []
    /// Extra usage lines after the generated one (alternative forms).
    var extraUsage: [String] = []

    /// `<node> [<action>] [<args> ...]` and `[--all] [--watch] [--for <condition> ...]`.
    var usageSynopsis: String {
        var parts: [String] = []
        for argument in arguments {
            let text = "<\(argument.name)>" + (argument.isVariadic ? " ..." : "")
            parts.append(argument.isOptional ? "[\(text)]" : text)
        }
        for option in options {
            var text = option.names.last!
            if let valueName = option.valueName { text += " <\(valueName)>" }
            if option.isRepeating { text += " ..." }
            parts.append(option.isRequired ? text : "[\(text)]")
        }
        return parts.joined(separator: " ")
    }
}

/// A positional argument.
struct ArgumentSpec: Sendable {
    var name: String
    var help: String
    var isOptional = false
    var isVariadic = false
}

/// A named option (`--timeout <duration>`) or flag (`--all`).
struct OptionSpec: Sendable, Equatable {
    /// Spellings, short first: `["-o", "--output"]`. The last one is the canonical key.
    var names: [String]
    /// The placeholder of the value (`duration`); nil for a flag.
    var valueName: String?
    var help: String
    var isRepeating = false
    /// Shown without brackets in the usage line (checked by the command's `validate`).
    var isRequired = false

    static func flag(_ names: String..., help: String) -> OptionSpec {
        OptionSpec(names: names, valueName: nil, help: help)
    }

    static func option(
        _ names: String..., value: String, help: String, repeating: Bool = false,
        required: Bool = false
    ) -> OptionSpec {
        OptionSpec(names: names, valueName: value, help: help, isRepeating: repeating, isRequired: required)
    }

    /// The canonical name, used as the key in ``ParsedArguments``.
    var key: String { names.last! }

    /// `-o, --output <format>` as shown in help.
    var label: String {
        names.joined(separator: ", ") + (valueName.map { " <\($0)>" } ?? "")
    }

    /// `--output <format>` as shown in error messages.
    var shortLabel: String {
        key + (valueName.map { " <\($0)>" } ?? "")
    }

    var isFlag: Bool { valueName == nil }

    /// The implicit `-h, --help` every command has.
    static let help = OptionSpec.flag("-h", "--help", help: "Show help information.")
}

/// What the scanner read for one command: positionals bound to names, option values, flags.
struct ParsedArguments: Sendable, Equatable {
    /// Positional values by argument name (a variadic argument may hold several or none).
    var arguments: [String: [String]] = [:]
    /// Option values by canonical name, in the order given.
    var values: [String: [String]] = [:]
    /// Flags given, by canonical name.
    var flags: Set<String> = []

    /// The single value of argument `name`.
    func argument(_ name: String) -> String? { arguments[name]?.first }
    /// Every value of a variadic argument.
    func variadic(_ name: String) -> [String] { arguments[name] ?? [] }
    /// The last value given for option `key` (`--timeout`), or nil.
    func value(_ key: String) -> String? { values[key]?.last }
    /// Every value of a repeatable option.
    func all(_ key: String) -> [String] { values[key] ?? [] }
    /// Whether flag `key` (`--all`) was given.
    func has(_ key: String) -> Bool { flags.contains(key) }
}
