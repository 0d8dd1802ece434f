import Foundation
import RexControl
import SQLite
import Synchronization
import Testing
@testable import RexNode

/// The journal on disk: what a restart recovers after a clean stop, a crash, a torn or damaged
/// tail, and a damaged snapshot or middle (refused, with a message that says what to do).
@Suite struct DurableJournalTests {
    @Test func recordsRoundTripAndHostileBytesAreRefused() throws {
        let actions: [NodeAction] = [
            .set(topic: "eu.prices", value: "42"), .set(topic: "ü", value: ""), .unset(topic: "eu.prices"),
            .follow(name: "f", topic: "eu.*", from: nil), .follow(name: "g", topic: "t", from: "n2"), .unfollow(name: "f"),
            .addPeer(id: "n3", endpoint: "tcp://127.0.0.1:7103"), .removePeer(id: "n3"),
        ]
        var bytes: [UInt8] = []
        for action in actions { #expect(ActionRecord.append(action, to: &bytes)) }
        #expect(!ActionRecord.append(.publish(topic: "t", payload: "p"), to: &bytes))
        #expect(try ActionRecord.decode(bytes) == actions)
        // Every cut of a valid stream decodes the whole records before it, or throws; never traps.
        var refused = 0
        for cut in 0..<bytes.count {
            if let decoded = try? ActionRecord.decode(Array(bytes[..<cut])) {
                #expect(decoded == Array(actions.prefix(decoded.count)))
            } else {
                refused += 1
            }
        }
        #expect(refused > bytes.count / 2)
        #expect(throws: ActionRecord.Malformed.self) { try ActionRecord.decode([99]) }
        #expect(throws: ActionRecord.Malformed.self) { try ActionRecord.decode([1, 0xff, 0xff, 0xff, 0xff]) }
        #expect(throws: ActionRecord.Malformed.self) { try ActionRecord.decode([2, 2, 0, 0, 0, 0xff, 0xfe]) }
    }

    @Test func aLogScanOfHostileBytesNeverTraps() {
        var generator = SystemRandomNumberGenerator()
        #expect(WriteAheadLogScan.scan([]) == WriteAheadLogScan())
        // A valid-looking magic with absurd page sizes, then plain noise of many lengths.
        for pageSize: UInt32 in [0, 1, 511, 65537, 0xffff_ffff] {
            var bytes: [UInt8] = [0x37, 0x7f, 0x06, 0x82, 0, 0x2d, 0xe2, 0x18]
            bytes += withUnsafeBytes(of: pageSize.bigEndian) { Array($0) } + [UInt8](repeating: 7, count: 5000)
            #expect(WriteAheadLogScan.scan(bytes) == WriteAheadLogScan())
        }
        for length in [1, 31, 32, 33, 4127, 4128, 9000] {
            let noise = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(!WriteAheadLogScan.scan(noise).damagedMiddle)
        }
    }

    @Test func durableStateRestoresThroughTheReducer() {
        var durable = DurableState()
        for action: NodeAction in [
            .set(topic: "a", value: "1"), .set(topic: "b", value: "2"), .unset(topic: "a"),
            .addPeer(id: "n9", endpoint: "tcp://127.0.0.1:7109"), .removePeer(id: "n2"),
            .follow(name: "f", topic: "t", from: "n9"), .follow(name: "g", topic: "u", from: nil), .unfollow(name: "g"),
        ] { durable.apply(action) }
        var initial = NodeState(id: "n1")
        initial.peers = ["n2": Peer(endpoint: "tcp://127.0.0.1:7102"), "n3": Peer(endpoint: "tcp://127.0.0.1:7103")]
        let state = durable.restore(onto: initial)
        #expect(state.feeds == ["b": Feed(value: "2")])
        #expect(Set(state.peers.keys) == ["n3", "n9"])
        #expect(state.follows.keys.sorted() == ["f"])
        #expect(state.follows["f"]?.endpoint == "tcp://127.0.0.1:7109")

        // A limit lowered since: the sorted order decides what stays, the same every time.
        var many = DurableState()
        for name in ["c", "a", "b"] { many.apply(.follow(name: name, topic: "t", from: nil)) }
        let lowered = many.restore(onto: NodeState(id: "n1", settings: NodeSettings(limits: NodeLimits(maxFollows: 1))))
        #expect(lowered.follows.keys.sorted() == ["a"] && lowered.refused == 2)
    }

    @Test func aCleanStopAndACrashBothRecoverEveryCommittedBatch() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let batches = sampleBatches(12)
        do {
            let journal = try NodeJournal(options: dir.options(), log: .quiet)
            for batch in batches { try journal.append(batch) }
            // A crash image: the files as they are while the process still runs.
            try dir.copyImage(to: "crash")
            journal.close()
        }
        let expected = fold(batches)
        let clean = try NodeJournal(options: dir.options(), log: .quiet)
        #expect(clean.state == expected && clean.lastSequence == durableCount(batches))
        clean.close()
        let crashed = try NodeJournal(options: dir.options("crash"), log: .quiet)
        #expect(crashed.state == expected)
        #expect(crashed.report.journalBatches == batches.count)
        #expect(crashed.report.discardedLogFrames == 0 && crashed.report.discardedLogBytes == 0)
        crashed.close()
    }

    @Test func compactionFoldsTheJournalIntoASnapshot() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let batches = sampleBatches(30)
        var options = dir.options()
        options.compactEveryActions = 25
        do {
            let journal = try NodeJournal(options: options, log: .quiet)
            for batch in batches { try journal.append(batch) }
            journal.close()
        }
        let reopened = try NodeJournal(options: options, log: .quiet)
        #expect(reopened.state == fold(batches))
        #expect(reopened.report.snapshotSequence > 0)
        #expect(reopened.report.journalActions < 25)
        #expect(reopened.report.lastSequence == durableCount(batches))
        reopened.close()
    }

    @Test func aTornTailIsDiscardedTruncatedAndLogged() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let batches = sampleBatches(8)
        try crashImage(dir, batches)
        let wal = dir.path + "/crash/node.db-wal"
        let size = try fileSize(wal)
        // Cut the log in the middle of its last frame (a write the crash interrupted).
        try truncate(wal, to: size - 1000)
        let lines = LogLines()
        let journal = try NodeJournal(options: dir.options("crash"), log: lines.logger)
        #expect(journal.state == fold(batches.dropLast()))
        #expect(journal.report.discardedLogBytes > 0)
        #expect(lines.contains("journal_tail_discarded"))
        #expect(try fileSize(wal) == 0, "the torn tail is truncated once recovery checkpointed the log")
        // And the journal continues after the last batch it kept.
        try journal.append([.set(topic: "after", value: "1")])
        journal.close()
        let again = try NodeJournal(options: dir.options("crash"), log: .quiet)
        #expect(again.state == fold(batches.dropLast() + [[.set(topic: "after", value: "1")]]))
        again.close()
    }

    @Test func aDamagedByteInTheLastFrameDropsOnlyTheLastBatch() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let batches = sampleBatches(8)
        try crashImage(dir, batches)
        let wal = dir.path + "/crash/node.db-wal"
        try flipByte(wal, at: try fileSize(wal) - 200)
        let lines = LogLines()
        let journal = try NodeJournal(options: dir.options("crash"), log: lines.logger)
        #expect(journal.state == fold(batches.dropLast()))
        #expect(journal.report.discardedLogFrames >= 1)
        #expect(lines.contains("journal_tail_discarded"))
        journal.close()
    }

    @Test func aDamagedFrameBeforeCommittedTransactionsRefusesToStart() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        try crashImage(dir, sampleBatches(8))
        // The first frame's page: every later transaction committed after it.
        try flipByte(dir.path + "/crash/node.db-wal", at: 32 + 24 + 100)
        let error = #expect(throws: DurableStateError.self) { try NodeJournal(options: dir.options("crash"), log: .quiet) }
        #expect(error?.message.contains("damaged frame") == true)
        #expect(error?.message.contains("move it aside") == true)
    }

    @Test func aDamagedSnapshotRefusesToStart() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        var options = dir.options()
        options.compactEveryActions = 10
        do {
            let journal = try NodeJournal(options: options, log: .quiet)
            for batch in sampleBatches(12) { try journal.append(batch) }
            journal.close()
        }
        try rewriteBlob(options.databasePath, table: "snapshot", key: "chunk", where: "chunk = 0")
        let error = #expect(throws: DurableStateError.self) { try NodeJournal(options: options, log: .quiet) }
        #expect(error?.message.contains("snapshot chunk 0") == true)
        #expect(error?.message.contains("Restore") == true)
    }

    @Test func aDamagedLastJournalRowIsTruncatedAndOneInTheMiddleRefused() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let batches = sampleBatches(6)
        do {
            let journal = try NodeJournal(options: dir.options(), log: .quiet)
            for batch in batches { try journal.append(batch) }
            journal.close()
        }
        try dir.copyImage(to: "middle")
        try rewriteBlob(dir.options().databasePath, table: "journal", key: "batch", where: "batch = (SELECT MAX(batch) FROM journal)")
        let lines = LogLines()
        let journal = try NodeJournal(options: dir.options(), log: lines.logger)
        #expect(journal.state == fold(batches.dropLast()))
        #expect(journal.report.truncatedJournalBatches == 1 && lines.contains("journal_tail_truncated"))
        journal.close()

        try rewriteBlob(dir.options("middle").databasePath, table: "journal", key: "batch", where: "batch = 2")
        let error = #expect(throws: DurableStateError.self) { try NodeJournal(options: dir.options("middle"), log: .quiet) }
        #expect(error?.message.contains("journal batch 2 fails its checksum, and batch 3 follows it") == true)
    }

    @Test func aDamagedDatabasePageRefusesToStart() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        do {
            let journal = try NodeJournal(options: dir.options(), log: .quiet)
            for batch in sampleBatches(4) { try journal.append(batch) }
            journal.close()
        }
        // The b-tree page type of every page after the first (the schema): no table can be read.
        let path = dir.options().databasePath
        let size = try fileSize(path)
        for page in stride(from: 4096, to: size, by: 4096) { try flipByte(path, at: page) }
        let error = #expect(throws: DurableStateError.self) { try NodeJournal(options: dir.options(), log: .quiet) }
        #expect(error?.message.contains("is damaged") == true)
    }

    @Test func aSecondNodeOnTheSameDirectoryIsRefused() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let first = try NodeJournal(options: dir.options(), log: .quiet)
        try first.append([.set(topic: "a", value: "1")])
        let error = #expect(throws: DurableStateError.self) { try NodeJournal(options: dir.options(), log: .quiet) }
        #expect(error?.message.contains("in use by another process") == true)
        first.close()
    }

    @Test func recovering100000FollowsTakesUnderTwoSeconds() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        do {
            // Written without an fsync per commit (the setup, not what is measured).
            var options = dir.options()
            options.mode = .none
            let journal = try NodeJournal(options: options, log: .quiet)
            for chunk in 0..<100 {
                try journal.append((0..<1000).map { .follow(name: "f\(chunk * 1000 + $0)", topic: "topic.\($0)", from: nil) })
            }
            journal.close()
        }
        let start = ContinuousClock.now
        let journal = try NodeJournal(options: dir.options(), log: .quiet)
        let state = journal.state.restore(onto: NodeState(id: "n1"))
        let elapsed = ContinuousClock.now - start
        journal.close()
        #expect(state.follows.count == 100_000)
        #expect(elapsed < .seconds(2), "recovery took \(elapsed)")
    }

    // MARK: - Helpers

    private func sampleBatches(_ count: Int) -> [[NodeAction]] {
        (0..<count).map { index in
            [
                .set(topic: "feed.\(index % 5)", value: "v\(index)"),
                .follow(name: "f\(index % 7)", topic: "t.\(index)", from: index % 2 == 0 ? nil : "n2"),
                index % 3 == 0 ? .unfollow(name: "f\((index + 1) % 7)") : .unset(topic: "feed.\((index + 2) % 5)"),
                .publish(topic: "x", payload: "not journaled"),
            ]
        }
    }

    private func durableCount(_ batches: [[NodeAction]]) -> UInt64 {
        UInt64(batches.joined().filter(ActionRecord.isDurable).count)
    }

    private func fold<S: Sequence>(_ batches: S) -> DurableState where S.Element == [NodeAction] {
        var state = DurableState()
        for batch in batches { for action in batch { state.apply(action) } }
        return state
    }

    /// Appends every batch, each its own commit, and copies the files while the journal is open.
    private func crashImage(_ dir: Scratch, _ batches: [[NodeAction]]) throws {
        let journal = try NodeJournal(options: dir.options(), log: .quiet)
        for batch in batches { try journal.append(batch) }
        try dir.copyImage(to: "crash")
        journal.close()
    }

    private func fileSize(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? -1
    }

    private func truncate(_ path: String, to size: Int) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
    }

    private func flipByte(_ path: String, at offset: Int) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data[offset] ^= 0x5a
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// Flips one byte of a row's payload in place, leaving its checksum: bit rot in the file.
    private func rewriteBlob(_ path: String, table: String, key: String, where condition: String) throws {
        let db = try SQLiteConnection(path: path)
        defer { db.close() }
        let read = try db.prepare("SELECT \(key), payload FROM \(table) WHERE \(condition)")
        #expect(try read.step())
        let row = read.int64(0)
        var payload = read.blob(1)
        payload[payload.count / 2] ^= 0x01
        read.reset()
        let write = try db.prepare("UPDATE \(table) SET payload = ? WHERE \(key) = ?")
        try write.bind(1, blob: payload)
        try write.bind(2, row)
        try write.run()
    }
}

/// A scratch data directory; `copyImage` copies its database files to a sibling directory.
private struct Scratch {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "rex-durable-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: path + "/main", withIntermediateDirectories: true)
    }

    func options(_ name: String = "main") -> DurableOptions { DurableOptions(directory: path + "/" + name) }

    func copyImage(to name: String) throws {
        try FileManager.default.createDirectory(atPath: path + "/" + name, withIntermediateDirectories: true)
        for file in ["node.db", "node.db-wal"] where FileManager.default.fileExists(atPath: path + "/main/" + file) {
            try FileManager.default.copyItem(atPath: path + "/main/" + file, toPath: path + "/" + name + "/" + file)
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Log lines a test can look into.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    var logger: NodeLogger { NodeLogger(nodeID: "test", level: .debug) { line in self.lines.withLock { $0.append(line) } } }

    func contains(_ text: String) -> Bool { lines.withLock { $0.contains { $0.contains(text) } } }
}

extension NodeLogger {
    static var quiet: NodeLogger { NodeLogger(nodeID: "test", level: .error) { _ in } }
}
