import CSQLite

/// A compiled statement of one ``SQLiteConnection``: bind, step, read columns, reset.
public final class SQLiteStatement {
    private let statement: OpaquePointer
    private let connection: SQLiteConnection
    private let sql: String

    init(_ statement: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.statement = statement
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(statement) }

    /// Binds an integer to parameter `index` (from 1).
    public func bind(_ index: Int32, _ value: Int64) throws(SQLiteError) {
        try check(sqlite3_bind_int64(statement, index, value), "bind")
    }

    /// Binds bytes (copied before the call returns) to parameter `index`.
    public func bind(_ index: Int32, blob: [UInt8]) throws(SQLiteError) {
        let code = blob.withUnsafeBytes { raw in
            // An empty array may have no base address; SQLite takes a zero-length blob then.
            sqlite3_bind_blob64(
                statement, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(raw.count), csqlite_transient())
        }
        try check(code, "bind")
    }

    /// Binds text (copied) to parameter `index`.
    public func bind(_ index: Int32, text: String) throws(SQLiteError) {
        try check(sqlite3_bind_text(statement, index, text, -1, csqlite_transient()), "bind")
    }

    /// Steps once: true when a row is ready to read, false when the statement is done.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(statement)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(code, "step: \(sql)")
        }
    }

    /// Steps to completion, then resets for the next use (bindings are kept until rebound).
    public func run() throws(SQLiteError) {
        defer { sqlite3_reset(statement) }
        while try step() {}
    }

    /// Makes the statement ready to run again.
    public func reset() {
        sqlite3_reset(statement)
    }

    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    /// The column's bytes (empty for NULL).
    public func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let base = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    public func text(_ column: Int32) -> String? {
        guard let text = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: text)
    }

    private func check(_ code: Int32, _ operation: String) throws(SQLiteError) {
        guard code == SQLITE_OK else { throw connection.error(code, "\(operation): \(sql)") }
    }
}

// Not Sendable: it belongs to its connection's thread.
@available(*, unavailable)
extension SQLiteStatement: Sendable {}
