import Foundation
import SQLite
import Testing

/// The SQLite wrapper: statements, blobs, transactions and errors, on a real database file.
@Suite struct SQLiteConnectionTests {
    private func withDatabase(_ body: (SQLiteConnection, String) throws -> Void) throws {
        let path = NSTemporaryDirectory() + "rex-sqlite-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).db"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let db = try SQLiteConnection(path: path)
        defer { db.close() }
        try body(db, path)
    }

    @Test func blobsRoundTripThroughAWALDatabase() throws {
        try withDatabase { db, _ in
            #expect(try db.scalarText("PRAGMA journal_mode=WAL") == "wal")
            try db.execute("CREATE TABLE t(k INTEGER PRIMARY KEY, v BLOB NOT NULL)")
            let insert = try db.prepare("INSERT INTO t(k, v) VALUES (?, ?)")
            for (key, bytes) in [(1, [UInt8]()), (2, [0, 1, 255]), (3, [UInt8](repeating: 7, count: 100_000))] {
                try insert.bind(1, Int64(key))
                try insert.bind(2, blob: bytes)
                try insert.run()
            }
            let select = try db.prepare("SELECT k, v FROM t ORDER BY k")
            var rows: [(Int64, [UInt8])] = []
            while try select.step() { rows.append((select.int64(0), select.blob(1))) }
            #expect(rows.map(\.0) == [1, 2, 3])
            #expect(rows[0].1 == [] && rows[1].1 == [0, 1, 255] && rows[2].1.count == 100_000)
            #expect(try db.checkpoint(truncate: true).logFrames >= 0)
        }
    }

    @Test func aThrowingTransactionRollsBack() throws {
        try withDatabase { db, _ in
            try db.execute("CREATE TABLE t(k INTEGER PRIMARY KEY)")
            #expect(throws: SQLiteError.self) {
                try db.transaction { () throws(SQLiteError) in
                    try db.execute("INSERT INTO t VALUES (1)")
                    try db.execute("INSERT INTO t VALUES (1)")  // a duplicate key: fails
                }
            }
            #expect(try db.scalarText("SELECT COUNT(*) FROM t") == "0")
            try db.transaction { () throws(SQLiteError) in try db.execute("INSERT INTO t VALUES (2)") }
            #expect(try db.scalarText("SELECT COUNT(*) FROM t") == "1")
        }
    }

    @Test func errorsNameTheOperationAndCode() throws {
        try withDatabase { db, _ in
            let error = #expect(throws: SQLiteError.self) { try db.prepare("SELEKT 1") }
            #expect(error?.operation == "prepare: SELEKT 1")
            #expect(error?.code == 1 && error?.message.contains("syntax error") == true)
        }
        let error = #expect(throws: SQLiteError.self) { try SQLiteConnection(path: "/nonexistent-dir/x/y.db") }
        #expect(error?.operation.hasPrefix("open") == true)
    }

    @Test func aFileThatIsNotADatabaseIsCorruption() throws {
        let path = NSTemporaryDirectory() + "rex-sqlite-garbage-\(getpid()).db"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: path))
        let db = try SQLiteConnection(path: path)
        defer { db.close() }
        let error = #expect(throws: SQLiteError.self) { try db.execute("SELECT * FROM sqlite_master") }
        #expect(error?.isCorruption == true)
    }
}
