/// Reads argv against the subcommand table: finds the subcommand, its options and the global
/// options (accepted before or after the subcommand), and binds positionals to argument names.
///
/// Scanning never stops at the first mistake silently: it records the first ``UsageError`` and
/// keeps reading so that `--help` anywhere still wins (as in argument-parser).
///
/// Accepted spellings: `--name value`, `--name=value`, `-o value`, `-ovalue`; `--` ends options.
struct ArgumentScanner {
    /// The subcommands, in help order.
    var commands: [CommandSpec]
    /// Options every subcommand accepts.
    var globalOptions: [OptionSpec]

    /// The outcome of scanning one command line.
    struct Scan: Equatable {
        /// The subcommand named on the command line (also for `rexctl help <subcommand>`).
        var command: CommandSpec.Name?
        /// The subcommand's own arguments and options.
        var arguments = ParsedArguments()
        /// The global options.
        var globals = ParsedArguments()
        /// `-h`, `--help` or `help` was given.
        var helpRequested = false
        /// The first mistake, if any (ignored when help was requested, unless it names an
        /// unknown subcommand: there is no page to show for that).
        var error: UsageError?
        /// An unknown subcommand was named.
        var unknownSubcommand = false
    }

    func scan(_ argv: [String]) -> Scan {
        var scan = Scan()
        var command: CommandSpec?
        var positionals: [String] = []
        var onlyPositionals = false
        var helpSubcommand = false
        var index = 0
        func fail(_ message: String) {
            if scan.error == nil { scan.error = UsageError(message) }
        }

        argumentLoop: while index < argv.count {
            let argument = argv[index]
            index += 1
            if !onlyPositionals {
                if argument == "--" {
                    onlyPositionals = true
                    continue
                }
                if argument == "-h" || argument == "--help" {
                    scan.helpRequested = true
                    continue
                }
                if argument.count > 1, argument.hasPrefix("-") {
                    var name = argument
                    var inlineValue: String?
                    if argument.hasPrefix("--") {
                        if let equals = argument.firstIndex(of: "=") {
                            name = String(argument[..<equals])
                            inlineValue = String(argument[argument.index(after: equals)...])
                        }
                    } else if argument.count > 2 {
                        name = String(argument.prefix(2))
                        inlineValue = String(argument.dropFirst(2))
                    }
                    let isGlobal: Bool
                    let option: OptionSpec
                    if let own = command?.options.first(where: { $0.names.contains(name) }) {
                        option = own
                        isGlobal = false
                    } else if let global = globalOptions.first(where: { $0.names.contains(name) }) {
                        option = global
                        isGlobal = true
                    } else {
                        fail("Unknown option '\(name)'")
                        continue
                    }
                    if option.isFlag {
                        if inlineValue != nil {
                            fail("Option '\(option.key)' does not take a value")
                            continue
                        }
                        if isGlobal { scan.globals.flags.insert(option.key) } else { scan.arguments.flags.insert(option.key) }
                        continue
                    }
                    let value: String
                    if let inlineValue {
                        value = inlineValue
                    } else if index < argv.count {
                        value = argv[index]
                        index += 1
                    } else {
                        fail("Missing value for '\(option.shortLabel)'")
                        continue
                    }
                    if isGlobal {
                        scan.globals.values[option.key, default: []].append(value)
                    } else {
                        scan.arguments.values[option.key, default: []].append(value)
                    }
                    continue
                }
            }
            if command == nil {
                if argument == "help" && !helpSubcommand {
                    helpSubcommand = true
                    scan.helpRequested = true
                    continue
                }
                guard let found = commands.first(where: { $0.name == argument }) else {
                    let names = commands.map(\.name).joined(separator: ", ")
                    fail("Unknown subcommand '\(argument)' (subcommands: \(names))")
                    scan.unknownSubcommand = true
                    break argumentLoop
                }
                command = found
                scan.command = .init(found.name)
                continue
            }
            positionals.append(argument)
        }

        guard let command else {
            if !scan.helpRequested {
                let names = commands.map(\.name).joined(separator: ", ")
                fail("Missing subcommand (one of: \(names))")
            }
            return scan
        }
        var next = 0
        for argument in command.arguments {
            if argument.isVariadic {
                scan.arguments.arguments[argument.name] = Array(positionals[min(next, positionals.count)...])
                next = positionals.count
            } else if next < positionals.count {
                scan.arguments.arguments[argument.name] = [positionals[next]]
                next += 1
            } else if !argument.isOptional {
                fail("Missing expected argument '<\(argument.name)>'")
            }
        }
        if next < positionals.count {
            fail("Unexpected argument '\(positionals[next])'")
        }
        return scan
    }
}

extension CommandSpec {
    /// A subcommand's name, as recorded by a scan.
    struct Name: Hashable, Sendable, CustomStringConvertible {
        var rawValue: String
        init(_ rawValue: String) { self.rawValue = rawValue }
        var description: String { rawValue }
    }
}
