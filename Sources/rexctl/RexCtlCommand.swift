/// One subcommand: its declaration, how it reads its arguments, checks them, and runs.
///
/// The three phases of argument-parser's `ParsableCommand`: `init(_:)` builds the value from a
/// scan, ``validate(_:)`` rejects bad combinations (exit 64, nothing sent), ``run(_:)`` talks to
/// nodes and returns the exit code.
protocol RexCtlCommand {
    /// Name, abstract, arguments and options: the source of both parsing and help.
    static var spec: CommandSpec { get }
    /// Builds the command from its scanned arguments (conversions only).
    init(_ arguments: ParsedArguments) throws(UsageError)
    /// Rejects combinations the scanner cannot see. Runs before any socket is created.
    func validate(_ globals: GlobalOptions) throws(UsageError)
    /// Does the work. Throws ``UsageError`` (64), ``CommandFailure`` (its code) or ``NodeRequestError`` (2).
    func run(_ context: CommandContext) throws -> ExitCode
}

extension RexCtlCommand {
    func validate(_ globals: GlobalOptions) throws(UsageError) {}
}
