/// A failed SQLite call: its result code, the connection's message and what was being done.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The primary result code (`SQLITE_CORRUPT` is 11, `SQLITE_FULL` 13, …).
    public let code: Int32
    public let message: String
    /// What the caller was doing: "open", "prepare: INSERT …", "step", "commit", ….
    public let operation: String

    public init(code: Int32, message: String, operation: String) {
        self.code = code
        self.message = message
        self.operation = operation
    }

    /// The database file (or a page of it) is damaged, or is not a database.
    public var isCorruption: Bool { code & 0xff == 11 || code & 0xff == 26 }

    public var description: String { "\(operation): \(message) (SQLite code \(code))" }
}
