/// The operator CLI: the root table of subcommands and the parse → validate → run driver.
///
/// `main.swift` only calls ``main(arguments:environment:stdout:stderr:)`` and exits with its
/// result, so tests run the whole CLI in-process with buffers for stdout and stderr.
enum RexCtl {
    static let abstract = "Operate a SwiftRex cluster: send actions to nodes and inspect their keep sets."

    static let discussion = """
        Every node answers the JSON control protocol on its control endpoint (docs/protocol.md).
        Nodes come from the cluster file written by deploy/ or from --node ID=ENDPOINT.

        EXIT CODES: 0 ok, 1 condition not met, 2 node unreachable or error reply, 64 usage error.
        """

    /// The subcommands, in help order.
    static var commands: [any RexCtlCommand.Type] {
        [
            NodesCommand.self,
            SendCommand.self,
            KeepCommand.self,
            StateCommand.self,
            MetricsCommand.self,
            TopCommand.self,
            DescribeCommand.self,
            WaitCommand.self,
            LoadCommand.self,
            KeygenCommand.self,
            AuthorityCommand.self,
            AdmitCommand.self,
            RevokeCommand.self,
            OperatorsCommand.self,
        ]
    }

    static var scanner: ArgumentScanner {
        ArgumentScanner(commands: commands.map { $0.spec }, globalOptions: GlobalOptions.specs)
    }

    /// `rexctl --help`.
    static var rootHelp: String {
        HelpFormatter.rootHelp(
            abstract: abstract, discussion: discussion,
            commands: commands.map { $0.spec }, globals: GlobalOptions.specs)
    }

    /// `rexctl <name> --help`.
    static func help(for name: String) -> String? {
        commands.first { $0.spec.name == name }.map { HelpFormatter.help(for: $0.spec, globals: GlobalOptions.specs) }
    }

    /// Runs one command line (without the program name) and returns the exit status.
    ///
    /// Help goes to `stdout` (exit 0). A usage error prints `Error: …` and the usage line on
    /// `stderr` (64). Other failures print one line on `stderr` (1 or 2). Error messages are
    /// escaped for the terminal (``TextOutput/errorLine(_:)``): they quote node replies.
    static func main(
        arguments: [String], environment: RexCtlEnvironment = .process,
        stdout: any TextOutput, stderr: any TextOutput
    ) -> Int32 {
        let scan = scanner.scan(arguments)
        let type = scan.command.flatMap { name in commands.first { $0.spec.name == name.rawValue } }

        if scan.helpRequested && !scan.unknownSubcommand {
            stdout.write(type.map { HelpFormatter.help(for: $0.spec, globals: GlobalOptions.specs) } ?? rootHelp)
            return ExitCode.success.rawValue
        }
        func usageFailure(_ error: UsageError) -> Int32 {
            stderr.errorLine(error.message)
            stderr.write(HelpFormatter.usageHint(for: type?.spec))
            return ExitCode.usage.rawValue
        }
        if let error = scan.error { return usageFailure(error) }
        guard let type else { return usageFailure(UsageError("Missing subcommand")) }

        let globals: GlobalOptions
        let command: any RexCtlCommand
        do {
            globals = try GlobalOptions(scan.globals)
            command = try type.init(scan.arguments)
            try command.validate(globals)
        } catch {
            return usageFailure(error)
        }

        let context = CommandContext(globals: globals, stdout: stdout, stderr: stderr, environment: environment)
        defer { context.close() }
        do {
            return try command.run(context).rawValue
        } catch let error as UsageError {
            return usageFailure(error)
        } catch let error as CommandFailure {
            stderr.errorLine(error.message)
            return error.exitCode.rawValue
        } catch let error as NodeRequestError {
            stderr.errorLine(error.description)
            return ExitCode.nodeError.rawValue
        } catch {
            stderr.errorLine("\(error)")
            return ExitCode.failure.rawValue
        }
    }
}
