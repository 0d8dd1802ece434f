import Foundation
import RexCluster
import RexControl
import SQLite

/// A node's durable state in SQLite: the latest snapshot plus a journal of the operator actions
/// accepted since, one row per committed batch (group commit).
///
/// ```
/// meta(key, value)                       format, snapshot_seq, snapshot_chunks
/// snapshot(chunk, payload, crc)          the snapshot's records, in chunks of up to 256 KiB
/// journal(batch, last_seq, actions, payload, crc)
/// ```
///
/// Actions are numbered from 1 for the life of the data directory; a batch row holds the
/// records of `actions` actions ending at `last_seq`. Every row carries a CRC-32 of its numbers
/// and bytes: SQLite checksums its log, not a row that rots in the database file.
///
/// The database runs in WAL mode with exclusive locking (one node per directory; the lock goes
/// with the process). `batch` durability commits with `synchronous=FULL` (the log is fsync'd at
/// every commit); `none` with `NORMAL` (no fsync per commit; a kill -9 still loses nothing that
/// was written, a power cut may).
///
/// Not thread-safe: it lives on the journal writer's thread.
final class NodeJournal<Feature: ClusterFeature> {
    static var formatVersion: Int64 { 1 }
    static var chunkBytes: Int { 256 << 10 }

    let options: DurableOptions
    private let db: SQLiteConnection
    private let log: NodeLogger
    private var insertBatch: SQLiteStatement?
    /// The fold of everything committed: what the next snapshot writes.
    private(set) var state: OperatorActionFold<Feature.Action, Feature.State>
    private(set) var lastSequence: UInt64
    private var nextBatch: Int64
    private var actionsSinceSnapshot = 0
    private var bytesSinceSnapshot = 0

    /// Opens (or creates) the journal in `options.directory` and recovers its state.
    init(options: DurableOptions, log: NodeLogger) throws(DurableStateError) {
        self.options = options
        self.log = log
        let start = ContinuousClock.now
        let directory = options.directory
        var report = RecoveryReport()
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw DurableStateError("cannot create the data directory \(directory): \(error.localizedDescription)")
        }

        // The log's tail, judged before SQLite opens (and silently repairs) it.
        let walPath = options.databasePath + "-wal"
        let scan = WriteAheadLogScan.scan(path: walPath)
        if scan.damagedMiddle {
            throw .damaged(
                "\(walPath) has a damaged frame followed by \(scan.committedAfterDamage) committed transactions "
                    + "(after frame \(scan.committedFrames))", directory: directory)
        }
        report.discardedLogFrames = scan.discardedFrames
        report.discardedLogBytes = scan.partialBytes

        let db: SQLiteConnection
        do throws(SQLiteError) {
            db = try SQLiteConnection(path: options.databasePath)
            // Exclusive: a second node on this directory fails here instead of interleaving.
            try db.execute("PRAGMA locking_mode=EXCLUSIVE")
            let mode = try db.scalarText("PRAGMA journal_mode=WAL")
            guard mode == "wal" else {
                throw SQLiteError(code: 1, message: "journal mode is \(mode ?? "unknown"), not wal", operation: "open")
            }
            try db.execute("PRAGMA synchronous=\(options.mode == .batch ? "FULL" : "NORMAL")")
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS snapshot(chunk INTEGER PRIMARY KEY, payload BLOB NOT NULL, crc INTEGER NOT NULL);
                CREATE TABLE IF NOT EXISTS journal(batch INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL,
                    actions INTEGER NOT NULL, payload BLOB NOT NULL, crc INTEGER NOT NULL);
                INSERT OR IGNORE INTO meta(key, value) VALUES ('format', \(Self.formatVersion)), ('snapshot_seq', 0), ('snapshot_chunks', 0);
                """)
        } catch let error where error.code & 0xff == 5 || error.code & 0xff == 6 {
            throw DurableStateError(
                "the data directory \(directory) is in use by another process (\(error.message)); "
                    + "give every node a directory of its own")
        } catch let error where error.isCorruption {
            throw .damaged("\(error)", directory: directory)
        } catch {
            throw DurableStateError("cannot open the durable state in \(directory): \(error)")
        }
        self.db = db

        do {
            guard try Self.meta(db, "format") == Self.formatVersion else {
                throw DurableStateError(
                    "\(options.databasePath) has format \(try Self.meta(db, "format")) and this rexnode reads "
                        + "format \(Self.formatVersion); run the rexnode that wrote it, or move the directory aside")
            }
            let check = try db.scalarText("PRAGMA quick_check") ?? "no answer"
            guard check == "ok" else { throw DurableStateError.damaged("SQLite's quick_check says: \(check)", directory: directory) }
            var state = OperatorActionFold(Feature.operatorActions)
            let snapshotSequence = UInt64(clamping: try Self.meta(db, "snapshot_seq"))
            report.snapshotSequence = snapshotSequence
            try Self.readSnapshot(db, sequence: snapshotSequence, into: &state, directory: directory)
            report.snapshotEntries = state.count
            var last = snapshotSequence
            var nextBatch: Int64 = 1
            let replay = try Self.replayJournal(db, after: snapshotSequence, into: &state, directory: directory, log: log)
            last = replay.lastSequence ?? last
            nextBatch = replay.nextBatch
            report.journalBatches = replay.batches
            report.journalActions = replay.actions
            report.truncatedJournalBatches = replay.truncated
            report.lastSequence = last
            self.state = state
            self.lastSequence = last
            self.nextBatch = nextBatch
            self.actionsSinceSnapshot = replay.actions
            self.bytesSinceSnapshot = replay.bytes
            insertBatch = try db.prepare("INSERT INTO journal(batch, last_seq, actions, payload, crc) VALUES (?, ?, ?, ?, ?)")
            // Everything valid into the database file, the -wal emptied: a discarded tail is gone.
            _ = try db.checkpoint(truncate: true)
            if let pages = options.maxDatabasePages { _ = try db.scalarText("PRAGMA max_page_count=\(pages)") }
        } catch let error as DurableStateError {
            db.close()
            throw error
        } catch let error as SQLiteError where error.isCorruption {
            db.close()
            throw .damaged("\(error)", directory: directory)
        } catch {
            db.close()
            throw DurableStateError("cannot read the durable state in \(directory): \(error)")
        }
        Self.syncDirectory(directory)
        report.elapsedMs = (ContinuousClock.now - start).wholeMilliseconds
        self.report = report
        if report.discardedLogFrames > 0 || report.discardedLogBytes > 0 {
            log.warning(
                "journal_tail_discarded",
                [
                    "frames": "\(report.discardedLogFrames)", "bytes": "\(report.discardedLogBytes)",
                    "reason": "the write-ahead log ended in a transaction that never committed (torn, cut short or damaged); "
                        + "it was never acknowledged, and is truncated",
                ])
        }
    }

    /// What recovery found.
    let report: RecoveryReport

    /// SQLite's `synchronous` level on this connection, as `options.mode` set it: 2 (FULL, the
    /// log fsync'd at every commit) for `batch`, 1 (NORMAL) for `none`; nil if unreadable.
    var synchronousLevel: Int? {
        let text: String?? = try? db.scalarText("PRAGMA synchronous")
        return text.flatMap { $0 }.flatMap { Int($0) }
    }

    /// Commits `actions` (the durable ones; others are skipped) as one batch, in one transaction,
    /// and folds them into `state`. An empty batch commits nothing. When it returns, the batch
    /// is committed; when it throws, the transaction was rolled back (or, if the commit itself
    /// failed, is in doubt: SQLite may have written it before the error).
    ///
    /// Compaction is a step of its own (``compactIfDue()``): its failure must not be mistaken
    /// for the failure of a batch that is committed.
    func append(_ actions: [Feature.Action]) throws(SQLiteError) {
        var payload: [UInt8] = []
        var count = 0
        let catalog = state.catalog
        for action in actions where catalog.appendRecord(action, to: &payload) { count += 1 }
        guard count > 0 else { return }
        let last = lastSequence + UInt64(count)
        let batch = nextBatch
        guard let insertBatch else { throw SQLiteError(code: 21, message: "the journal is closed", operation: "append") }
        try db.transaction { () throws(SQLiteError) in
            try insertBatch.bind(1, batch)
            try insertBatch.bind(2, Int64(clamping: last))
            try insertBatch.bind(3, Int64(count))
            try insertBatch.bind(4, blob: payload)
            try insertBatch.bind(5, Int64(Self.batchCRC(batch: batch, last: last, count: count, payload)))
            try insertBatch.run()
        }
        nextBatch += 1
        lastSequence = last
        for action in actions { state.apply(action) }
        actionsSinceSnapshot += count
        bytesSinceSnapshot += payload.count
    }

    /// Compacts when the journal since the last snapshot passed `compactEveryActions` or
    /// `compactEveryBytes`; returns whether it did.
    @discardableResult
    func compactIfDue() throws(SQLiteError) -> Bool {
        guard actionsSinceSnapshot >= options.compactEveryActions || bytesSinceSnapshot >= options.compactEveryBytes else { return false }
        try compact()
        return true
    }

    /// Writes `state` as the new snapshot and deletes the journal it folds, in one transaction;
    /// then checkpoints the log into the database file.
    func compact() throws(SQLiteError) {
        let start = ContinuousClock.now
        var chunks: [[UInt8]] = []
        var chunk: [UInt8] = []
        let catalog = state.catalog
        for action in state.actions {
            catalog.appendRecord(action, to: &chunk)
            if chunk.count >= Self.chunkBytes {
                chunks.append(chunk)
                chunk = []
            }
        }
        if !chunk.isEmpty { chunks.append(chunk) }
        let sequence = lastSequence
        try db.transaction { () throws(SQLiteError) in
            try db.execute("DELETE FROM snapshot")
            let insert = try db.prepare("INSERT INTO snapshot(chunk, payload, crc) VALUES (?, ?, ?)")
            for (index, payload) in chunks.enumerated() {
                try insert.bind(1, Int64(index))
                try insert.bind(2, blob: payload)
                try insert.bind(3, Int64(Self.chunkCRC(chunk: index, sequence: sequence, payload)))
                try insert.run()
            }
            try db.execute(
                """
                UPDATE meta SET value = \(Int64(clamping: sequence)) WHERE key = 'snapshot_seq';
                UPDATE meta SET value = \(chunks.count) WHERE key = 'snapshot_chunks';
                DELETE FROM journal WHERE last_seq <= \(Int64(clamping: sequence));
                """)
        }
        actionsSinceSnapshot = 0
        bytesSinceSnapshot = 0
        _ = try db.checkpoint(truncate: false)
        log.info(
            "journal_compacted",
            [
                "snapshot_seq": "\(sequence)", "chunks": "\(chunks.count)", "bytes": "\(chunks.reduce(0) { $0 + $1.count })",
                "elapsed_ms": "\((ContinuousClock.now - start).wholeMilliseconds)",
            ])
    }

    /// Closes the database (SQLite checkpoints and removes the -wal file).
    func close() {
        // Statements first: a connection closes for real (and lets go of its lock) only once
        // none is left.
        insertBatch = nil
        db.close()
    }
}
