import CSQLite

/// One SQLite database connection, used by one thread at a time.
///
/// A thin, checked wrapper: every call's result code goes through `check`, which turns anything
/// but the expected codes into a ``SQLiteError`` naming the operation.
///
/// ```swift
/// let db = try SQLiteConnection(path: "/var/lib/rex/node.db")
/// try db.execute("PRAGMA journal_mode=WAL")
/// let insert = try db.prepare("INSERT INTO journal(payload) VALUES (?)")
/// try insert.bind(1, blob: bytes); try insert.run()
/// ```
public final class SQLiteConnection {
    private var handle: OpaquePointer?

    /// Opens (and creates) the database file at `path`, read-write; no shared cache, no URI.
    public init(path: String) throws(SQLiteError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteError(code: code, message: message, operation: "open \(path)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { close() }

    /// Closes the connection (a WAL database is checkpointed and its -wal file removed when this
    /// is the last connection). Safe to call twice.
    public func close() {
        guard let handle else { return }
        sqlite3_close_v2(handle)
        self.handle = nil
    }

    var pointer: OpaquePointer {
        guard let handle else { preconditionFailure("SQLiteConnection used after close()") }
        return handle
    }

    /// Runs one or more statements that return no rows worth reading.
    public func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(pointer, sql, nil, nil, &errorMessage)
        guard code == SQLITE_OK else {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(pointer))
            sqlite3_free(errorMessage)
            throw SQLiteError(code: code, message: message, operation: sql)
        }
    }

    /// Compiles one statement.
    public func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v2(pointer, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw error(code, "prepare: \(sql)") }
        return SQLiteStatement(statement, connection: self, sql: sql)
    }

    /// The first column of the first row of `sql`, as text (nil when there is no row).
    public func scalarText(_ sql: String) throws(SQLiteError) -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; rolls back when it throws.
    public func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// A checkpoint of the write-ahead log: frames in the log, and frames moved into the database.
    ///
    /// `truncate` also empties the -wal file once every frame is in the database.
    public func checkpoint(truncate: Bool) throws(SQLiteError) -> (logFrames: Int, checkpointed: Int) {
        var log: Int32 = 0
        var done: Int32 = 0
        let mode = truncate ? SQLITE_CHECKPOINT_TRUNCATE : SQLITE_CHECKPOINT_PASSIVE
        let code = sqlite3_wal_checkpoint_v2(pointer, nil, mode, &log, &done)
        guard code == SQLITE_OK else { throw error(code, "checkpoint") }
        return (Int(log), Int(done))
    }

    func error(_ code: Int32, _ operation: String) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(pointer)), operation: operation)
    }

    /// The SQLite library's version, e.g. "3.40.1".
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}

// Not Sendable: a connection opened with SQLITE_OPEN_NOMUTEX must stay on one thread at a time.
@available(*, unavailable)
extension SQLiteConnection: Sendable {}
