/// The command line is wrong: printed as `Error: …` plus the usage line, exit 64.
///
/// Like argument-parser's `ValidationError`: thrown while scanning, by a command's `validate()`,
/// and by `run()` when a node id is unknown (nothing has been sent at that point).
struct UsageError: Error, Equatable, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// A command ran and did not succeed: one line on stderr, then exit with `exitCode`.
///
/// `message` says what happened and what to do next.
struct CommandFailure: Error, Equatable, CustomStringConvertible {
    var exitCode: ExitCode
    var message: String
    init(_ exitCode: ExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }
    var description: String { message }
}

/// The process exit status (sysexits-style where one applies).
enum ExitCode: Int32, Sendable {
    /// Done, or the condition holds.
    case success = 0
    /// A condition was not met: `wait` timed out, a channel is missing, a check failed.
    case failure = 1
    /// A node did not answer, or answered with an error.
    case nodeError = 2
    /// The command line is wrong (EX_USAGE).
    case usage = 64
}
