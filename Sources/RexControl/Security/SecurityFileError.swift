/// Why a key file or an operators file cannot be used: one sentence saying what is wrong and,
/// where there is one, the command that fixes it (without the path, which the caller adds).
public struct SecurityFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
