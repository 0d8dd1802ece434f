import Foundation
import RexCluster
import RexControl
import SQLite

/// Reading a data directory back: the snapshot, then the journal after it, every batch and
/// chunk checked against its checksum.
extension NodeJournal {

    static func meta(_ db: SQLiteConnection, _ key: String) throws(SQLiteError) -> Int64 {
        let statement = try db.prepare("SELECT value FROM meta WHERE key = ?")
        try statement.bind(1, text: key)
        guard try statement.step() else { throw SQLiteError(code: 11, message: "meta '\(key)' is missing", operation: "recover") }
        return statement.int64(0)
    }

    static func readSnapshot(
        _ db: SQLiteConnection, sequence: UInt64, into state: inout OperatorActionFold<Feature.Action, Feature.State>, directory: String
    ) throws -> Void {
        let expected = try meta(db, "snapshot_chunks")
        let rows = try db.prepare("SELECT chunk, payload, crc FROM snapshot ORDER BY chunk")
        var index: Int64 = 0
        while try rows.step() {
            let chunk = rows.int64(0)
            let payload = rows.blob(1)
            guard chunk == index, index < expected else {
                throw DurableStateError.damaged(
                    "the snapshot has chunk \(chunk) where chunk \(index) of \(expected) belongs", directory: directory)
            }
            guard UInt32(truncatingIfNeeded: rows.int64(2)) == chunkCRC(chunk: Int(index), sequence: sequence, payload) else {
                throw DurableStateError.damaged("snapshot chunk \(index) of \(expected) fails its checksum", directory: directory)
            }
            do {
                try state.catalog.decodeRecords(payload) { state.apply($0) }
            } catch {
                throw DurableStateError.damaged("snapshot chunk \(index): \(error)", directory: directory)
            }
            index += 1
        }
        guard index == expected else {
            throw DurableStateError.damaged("the snapshot has \(index) chunks of the \(expected) it was written with", directory: directory)
        }
    }

    struct Replay {
        var lastSequence: UInt64?
        var nextBatch: Int64 = 1
        var batches = 0
        var actions = 0
        var bytes = 0
        var truncated = 0
    }

    /// Folds the journal's batches after `snapshot` into `state`. A batch that fails its
    /// checksum (or does not parse) is a damaged tail when it is the last one — removed, and
    /// logged — and damage in the middle otherwise (refused).
    static func replayJournal(
        _ db: SQLiteConnection, after snapshot: UInt64, into state: inout OperatorActionFold<Feature.Action, Feature.State>,
        directory: String,
        log: NodeLogger
    ) throws -> Replay {
        var replay = Replay()
        // Batch numbers far from the end of Int64 (a row can only be numbered by this code; a
        // larger one is a damaged or foreign file, refused rather than overflowed later).
        guard let next = (try db.scalarText("SELECT COALESCE(MAX(batch), 0) + 1 FROM journal")).flatMap({ Int64($0) }),
            (1..<(Int64.max / 2)).contains(next)
        else {
            throw DurableStateError.damaged("the journal's batch numbers are out of range", directory: directory)
        }
        replay.nextBatch = next
        // Room for the keys the journal may add to the catalog's bulk resource (a feeds node's
        // follows), at once rather than by doubling (each doubling rehashes every key and frees
        // the old table). The journal's action count bounds them; capped, so a long
        // journal of sets costs little unused room. Only an estimate: a count SQLite cannot sum
        // (a damaged row) reserves nothing, and the rows are checked one by one below.
        let sum = "SELECT COALESCE(SUM(actions), 0) FROM journal WHERE last_seq > \(Int64(clamping: snapshot))"
        if let pending = (try? db.scalarText(sum)).flatMap({ $0.flatMap { Int($0) } }), pending > 0 {
            if let bulk = state.catalog.bulkResource { state.reserveCapacity(min(pending, 1 << 17), in: bulk) }
        }
        let rows = try db.prepare("SELECT batch, last_seq, actions, payload, crc FROM journal WHERE last_seq > ? ORDER BY batch")
        try rows.bind(1, Int64(clamping: snapshot))
        var expectedFirst = snapshot + 1
        var damaged: (batch: Int64, reason: String)?
        while try rows.step() {
            let batch = rows.int64(0)
            if let damaged {
                throw DurableStateError.damaged(
                    "journal batch \(damaged.batch) \(damaged.reason), and batch \(batch) follows it",
                    directory: directory)
            }
            let last = UInt64(clamping: rows.int64(1))
            let count = Int(clamping: rows.int64(2))
            let payload = rows.blob(3)
            guard UInt32(truncatingIfNeeded: rows.int64(4)) == batchCRC(batch: batch, last: last, count: count, payload) else {
                damaged = (batch, "fails its checksum")
                continue
            }
            guard count > 0, last >= UInt64(count), last - UInt64(count) + 1 == expectedFirst else {
                throw DurableStateError.damaged(
                    "journal batch \(batch) holds actions up to \(last) (\(count) of them) where "
                        + "action \(expectedFirst) comes next: actions are missing", directory: directory)
            }
            var decoded: [Feature.Action] = []
            do {
                try state.catalog.decodeRecords(payload) { decoded.append($0) }
            } catch {
                damaged = (batch, "does not parse (\(error))")
                continue
            }
            guard decoded.count == count else {
                damaged = (batch, "holds \(decoded.count) actions, not \(count)")
                continue
            }
            for action in decoded { state.apply(action) }
            decoded.removeAll()
            replay.lastSequence = last
            replay.batches += 1
            replay.actions += count
            replay.bytes += payload.count
            expectedFirst = last + 1
        }
        if let damaged {
            try db.execute("DELETE FROM journal WHERE batch >= \(damaged.batch)")
            replay.truncated = 1
            log.warning("journal_tail_truncated", ["batch": "\(damaged.batch)", "reason": damaged.reason])
        }
        return replay
    }

    // MARK: - Checksums and files

    static func batchCRC(batch: Int64, last: UInt64, count: Int, _ payload: [UInt8]) -> UInt32 {
        CRC32.checksum(
            payload, seed: CRC32.checksum(littleEndian(UInt64(bitPattern: batch)) + littleEndian(last) + littleEndian(UInt64(count))))
    }

    static func chunkCRC(chunk: Int, sequence: UInt64, _ payload: [UInt8]) -> UInt32 {
        CRC32.checksum(payload, seed: CRC32.checksum(littleEndian(UInt64(chunk)) + littleEndian(sequence)))
    }

    static func littleEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// fsyncs the directory, so the files SQLite created in it (the database, its log) are
    /// found after a power cut, not only their contents.
    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = Glibc.close(fd)
    }
}
