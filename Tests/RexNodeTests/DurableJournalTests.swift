import Dispatch
import Foundation
import NodeTestSupport
import RexControl
import SQLite
import Synchronization
import Testing

@testable import RexCluster
@testable import RexFeeds
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
        // A record ending in an empty field ends with its 4-byte length: nothing after it.
        var empty: [UInt8] = []
        ActionRecord.append(.set(topic: "t", value: ""), to: &empty)
        #expect(try ActionRecord.decode(empty) == [.set(topic: "t", value: "")])
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
        #expect(lowered.follows["a"]?.restoredAtStart == true, "past a limit too, a restored follow opens without the settle")
    }

    /// Past a limit, the rebuilding actions remove before they put: a configured peer the
    /// operator removed makes the room the peer the operator added takes.
    @Test func aRemovalFreesTheRoomOfAPutAtTheLimit() {
        var durable = DurableState()
        durable.apply(.removePeer(id: "n2"))
        durable.apply(.addPeer(id: "n9", endpoint: "tcp://127.0.0.1:7109"))
        var initial = NodeState(id: "n1", settings: NodeSettings(limits: NodeLimits(maxPeers: 2)))
        initial.peers = ["n2": Peer(endpoint: "tcp://127.0.0.1:7102"), "n3": Peer(endpoint: "tcp://127.0.0.1:7103")]
        let state = durable.restore(onto: initial)
        #expect(Set(state.peers.keys) == ["n3", "n9"] && state.refused == 0)
    }

    /// The follows are restored in one pass, without the reducer: the result must be what the
    /// reducer gives (every follow through `NodeFeature.reduce`, then marked restored), peers'
    /// endpoints resolved, unknown and removed peers left unresolved.
    @Test func followsRestoredInOnePassEqualTheReducersFold() {
        var durable = DurableState()
        var actions: [NodeAction] = [
            .addPeer(id: "n9", endpoint: "tcp://127.0.0.1:7109"), .removePeer(id: "n2"), .set(topic: "x", value: "1"),
        ]
        for index in 0..<300 {
            let from: String? = [nil, "n9", "n3", "n2", "n7"][index % 5]
            actions.append(.follow(name: "f\(index)", topic: "t.\(index % 7)\(index % 2 == 0 ? "*" : "")", from: from))
        }
        actions += [.unfollow(name: "f4"), .follow(name: "f5", topic: "moved", from: nil)]
        for action in actions { durable.apply(action) }
        var initial = NodeState(id: "n1")
        initial.peers = ["n2": Peer(endpoint: "tcp://127.0.0.1:7102"), "n3": Peer(endpoint: "tcp://127.0.0.1:7103")]

        let restored = durable.restore(onto: initial)
        var expected = initial
        for action in durable.actions { NodeFeature.reduce(action, &expected) }
        FollowFeature.markRestored(&expected.follows)
        #expect(restored.follows == expected.follows)
        #expect(restored.follows.values.allSatisfy { $0.restoredAtStart })
        #expect(restored.follows.count == 299 && restored.follows["f5"]?.topic == "moved")
        #expect(restored.follows["f1"]?.endpoint == "tcp://127.0.0.1:7109" && restored.follows["f2"]?.endpoint == "tcp://127.0.0.1:7103")
        #expect(restored.follows["f3"]?.endpoint == nil && restored.follows["f3"]?.from == "n2", "a removed peer resolves to nothing")
        #expect(restored.feeds == expected.feeds && restored.peers == expected.peers && restored.refused == 0)
        #expect(restored.followsByPeer == expected.followsByPeer, "the from-peer index is kept as the reducer keeps it")
        #expect(restored.followsByPeer["n9"].count == 60)
    }

    @Test func aCleanStopAndACrashBothRecoverEveryCommittedBatch() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let batches = sampleBatches(12)
        try await onDisk {
            let journal = try NodeJournal(options: dir.options(), log: .quiet)
            for batch in batches { try journal.append(batch); try journal.compactIfDue() }
            // A crash image: the files as they are while the process still runs.
            try dir.copyImage(to: "crash")
            journal.close()
        }
        let expected = fold(batches)
        let clean = try await recover(dir.options())
        #expect(clean.state == expected && clean.lastSequence == durableCount(batches))
        let crashed = try await recover(dir.options("crash"))
        #expect(crashed.state == expected)
        #expect(crashed.report.journalBatches == batches.count)
        #expect(crashed.report.discardedLogFrames == 0 && crashed.report.discardedLogBytes == 0)
    }

    @Test func compactionFoldsTheJournalIntoASnapshot() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let batches = sampleBatches(30)
        var options = dir.options()
        options.compactEveryActions = 25
        try await append(batches, options)
        let reopened = try await recover(options)
        #expect(reopened.state == fold(batches))
        #expect(reopened.report.snapshotSequence > 0)
        #expect(reopened.report.journalActions < 25)
        #expect(reopened.report.lastSequence == durableCount(batches))
        // The snapshot replaces the batches it folds: none is left behind it.
        let folded = "SELECT COUNT(*) FROM journal WHERE last_seq <= (SELECT value FROM meta WHERE key = 'snapshot_seq')"
        #expect(try scalar(options.databasePath, folded) == "0")
    }

    @Test func aTornTailIsDiscardedTruncatedAndLogged() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let batches = sampleBatches(8)
        try await crashImage(dir, batches)
        let wal = dir.path + "/crash/node.db-wal"
        // Cut the log in the middle of its last frame (a write the crash interrupted).
        try truncate(wal, to: try fileSize(wal) - 1000)
        let lines = LogLines()
        let (recovered, sizeAfter) = try await onDisk {
            let journal = try NodeJournal(options: dir.options("crash"), log: lines.logger)
            let recovered = Recovered(journal)
            let size = try fileSize(wal)
            // And the journal continues after the last batch it kept.
            try journal.append([.set(topic: "after", value: "1")])
            journal.close()
            return (recovered, size)
        }
        #expect(recovered.state == fold(batches.dropLast()))
        #expect(recovered.report.discardedLogBytes > 0)
        #expect(lines.contains("journal_tail_discarded"))
        #expect(sizeAfter == 0, "the torn tail is truncated once recovery checkpointed the log")
        let again = try await recover(dir.options("crash"))
        #expect(again.state == fold(batches.dropLast() + [[.set(topic: "after", value: "1")]]))
    }

    @Test func aDamagedByteInTheLastFrameDropsOnlyTheLastBatch() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let batches = sampleBatches(8)
        try await crashImage(dir, batches)
        let wal = dir.path + "/crash/node.db-wal"
        try flipByte(wal, at: try fileSize(wal) - 200)
        let lines = LogLines()
        let recovered = try await recover(dir.options("crash"), log: lines.logger)
        #expect(recovered.state == fold(batches.dropLast()))
        #expect(recovered.report.discardedLogFrames >= 1)
        #expect(lines.contains("journal_tail_discarded"))
    }

    @Test func aDamagedFrameBeforeCommittedTransactionsRefusesToStart() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        try await crashImage(dir, sampleBatches(8))
        // The first frame's page: every later transaction committed after it.
        try flipByte(dir.path + "/crash/node.db-wal", at: 32 + 24 + 100)
        let message = try await refusal(dir.options("crash"))
        #expect(message?.contains("damaged frame") == true)
        #expect(message?.contains("move it aside") == true)
    }

    @Test func aDamagedSnapshotRefusesToStart() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        var options = dir.options()
        options.compactEveryActions = 10
        try await append(sampleBatches(12), options)
        try rewriteBlob(options.databasePath, table: "snapshot", key: "chunk", where: "chunk = 0")
        let message = try await refusal(options)
        #expect(message?.contains("snapshot chunk 0") == true)
        #expect(message?.contains("Restore") == true)
    }

    @Test func aDamagedLastJournalRowIsTruncatedAndOneInTheMiddleRefused() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let batches = sampleBatches(6)
        try await append(batches, dir.options())
        try dir.copyImage(to: "middle")
        try rewriteBlob(dir.options().databasePath, table: "journal", key: "batch", where: "batch = (SELECT MAX(batch) FROM journal)")
        let lines = LogLines()
        let recovered = try await recover(dir.options(), log: lines.logger)
        #expect(recovered.state == fold(batches.dropLast()))
        #expect(recovered.report.truncatedJournalBatches == 1 && lines.contains("journal_tail_truncated"))
        // The damaged row is gone, not only skipped: the journal goes on after the batch before it.
        let later: [NodeAction] = [.set(topic: "later", value: "1")]
        try await append([later], dir.options())
        #expect(try await recover(dir.options()).state == fold(batches.dropLast() + [later]))

        try rewriteBlob(dir.options("middle").databasePath, table: "journal", key: "batch", where: "batch = 2")
        let message = try await refusal(dir.options("middle"))
        #expect(message?.contains("journal batch 2 fails its checksum, and batch 3 follows it") == true)
    }

    @Test func aDamagedDatabasePageRefusesToStart() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        try await append(sampleBatches(4), dir.options())
        // The b-tree page type of every page after the first (the schema): no table can be read.
        let path = dir.options().databasePath
        for page in stride(from: 4096, to: try fileSize(path), by: 4096) { try flipByte(path, at: page) }
        let message = try await refusal(dir.options())
        #expect(message?.contains("is damaged") == true)
    }

    @Test func aSecondNodeOnTheSameDirectoryIsRefused() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let message = try await onDisk { () throws -> String? in
            let first = try NodeJournal(options: dir.options(), log: .quiet)
            defer { first.close() }
            try first.append([.set(topic: "a", value: "1")])
            do throws(DurableStateError) {
                _ = try NodeJournal(options: dir.options(), log: .quiet)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message?.contains("in use by another process") == true)
    }

    /// 100,000 follows come back, every one. How long it takes is a release figure: node log's
    /// `recovered elapsed_ms`, printed by `deploy/e2e/crash_loop.py --big-restart 100000`.
    @Test func recovering100000FollowsRestoresEveryOne() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        // Written without an fsync per commit (the setup, not what is measured).
        var setup = dir.options()
        setup.mode = .none
        try await append(
            (0..<100).map { chunk in
                (0..<1000).map { .follow(name: "f\(chunk * 1000 + $0)", topic: "topic.\($0)", from: nil) }
            }, setup)
        let (follows, actions) = try await onDisk {
            let journal = try NodeJournal(options: dir.options(), log: .quiet)
            let state = NodeFeature.restore(journal.state, onto: NodeState(id: "n1"))
            let actions = journal.report.snapshotEntries + journal.report.journalActions
            journal.close()
            return (state.follows, actions)
        }
        #expect(follows.count == 100_000)
        #expect(follows["f0"]?.topic == "topic.0" && follows["f99999"]?.topic == "topic.999")
        #expect(follows.values.allSatisfy { $0.restoredAtStart }, "every follow opens at once, without the settle")
        #expect(actions == 100_000, "one snapshot entry or journaled action per follow: \(actions)")
    }

    // MARK: Checksums, numbering and what a restart checks

    /// The journal's checksum is CRC-32 as zlib computes it (the standard check value), and a
    /// seed continues a checksum over more bytes.
    @Test func theChecksumIsCRC32AndASeedContinuesIt() {
        let text = Array("123456789".utf8)
        #expect(CRC32.checksum(text) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
        #expect(CRC32.checksum(Array(text[4...]), seed: CRC32.checksum(Array(text[..<4]))) == 0xCBF4_3926)
    }

    /// A journal row's checksum covers its numbers as well as its bytes (a row whose batch,
    /// last sequence or count rotted fails it), and a snapshot chunk's covers its index and the
    /// snapshot's sequence.
    @Test func aRowsChecksumCoversItsNumbers() {
        let payload: [UInt8] = [1, 2, 3]
        let row = NodeJournal.batchCRC(batch: 7, last: 40, count: 3, payload)
        #expect(NodeJournal.batchCRC(batch: 8, last: 40, count: 3, payload) != row)
        #expect(NodeJournal.batchCRC(batch: 7, last: 41, count: 3, payload) != row)
        #expect(NodeJournal.batchCRC(batch: 7, last: 40, count: 4, payload) != row)
        #expect(NodeJournal.batchCRC(batch: 7, last: 40, count: 3, [1, 2, 4]) != row)
        let chunk = NodeJournal.chunkCRC(chunk: 2, sequence: 900, payload)
        #expect(NodeJournal.chunkCRC(chunk: 3, sequence: 900, payload) != chunk)
        #expect(NodeJournal.chunkCRC(chunk: 2, sequence: 901, payload) != chunk)
        #expect(NodeJournal.chunkCRC(chunk: 2, sequence: 900, [1, 2, 4]) != chunk)
    }

    /// `batch` durability runs SQLite with synchronous=FULL (the log fsync'd at every commit,
    /// before the answer); `none` with NORMAL.
    @Test func batchCommitsWithSynchronousFullAndNoneWithNormal() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        var relaxed = dir.options("none")
        relaxed.mode = .none
        let frozen = relaxed
        let levels = try await onDisk { () throws -> [Int?] in
            let batch = try NodeJournal(options: dir.options(), log: .quiet)
            defer { batch.close() }
            let none = try NodeJournal(options: frozen, log: .quiet)
            defer { none.close() }
            return [batch.synchronousLevel, none.synchronousLevel]
        }
        #expect(levels == [2, 1])
    }

    /// A batch missing between two that verify (a row deleted) refuses to start: the batches
    /// must follow each other, action by action.
    @Test func aJournalWithABatchMissingRefusesToStart() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        try await append(sampleBatches(6), dir.options())
        try execute(dir.options().databasePath, "DELETE FROM journal WHERE batch = 3")
        let message = try await refusal(dir.options())
        #expect(message?.contains("journal batch 4 holds actions up to 12 (3 of them) where action 7 comes next") == true)
    }

    /// Compaction runs once the journal since the snapshot holds its threshold of actions: at
    /// the threshold, not one past.
    @Test func compactionRunsAtItsThreshold() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        var options = dir.options()
        options.compactEveryActions = 3
        let frozen = options
        let compacted = try await onDisk { () throws -> [Bool] in
            let journal = try NodeJournal(options: frozen, log: .quiet)
            defer { journal.close() }
            return try sampleBatches(2).map { batch in
                try journal.append(batch)
                return try journal.compactIfDue()
            }
        }
        #expect(compacted == [true, true], "3 durable actions per batch, a threshold of 3")
    }

    /// A snapshot written in two chunks and found with one refuses to start.
    @Test func aSnapshotMissingAChunkRefusesToStart() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        var options = dir.options()
        options.mode = .none
        options.compactEveryActions = 100
        // 100 values of 4,000 bytes: more than one chunk of 256 KiB.
        try await append((0..<100).map { [.set(topic: "t\($0)", value: String(repeating: "v", count: 4000))] }, options)
        #expect(try scalar(options.databasePath, "SELECT COUNT(*) FROM snapshot") == "2")
        try execute(options.databasePath, "DELETE FROM snapshot WHERE chunk = 1")
        let message = try await refusal(options)
        #expect(message?.contains("the snapshot has 1 chunks of the 2 it was written with") == true)
    }

    /// A damaged frame inside the last transaction, ahead of its commit frame, is a torn tail
    /// too (one commit verifies after the damage: that transaction's own): the last batch is
    /// dropped and the node starts.
    @Test func aDamagedFrameOfTheLastTransactionDropsOnlyTheLastBatch() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let batches = sampleBatches(6)
        // A value over several pages: the last transaction spans several frames.
        let big: [NodeAction] = [.set(topic: "big", value: String(repeating: "b", count: 20_000))]
        let wal = dir.path + "/main/node.db-wal"
        let start = try await onDisk { () throws -> Int in
            let journal = try NodeJournal(options: dir.options(), log: .quiet)
            for batch in batches { try journal.append(batch) }
            let start = try fileSize(wal)
            try journal.append(big)
            try dir.copyImage(to: "crash")
            journal.close()
            return start
        }
        let copy = dir.path + "/crash/node.db-wal"
        #expect(try fileSize(copy) - start >= 3 * (24 + 4096), "the last transaction's frames")
        try flipByte(copy, at: start + 24 + 100)  // the page of its first frame
        let recovered = try await recover(dir.options("crash"))
        #expect(recovered.state == fold(batches))
        #expect(recovered.report.discardedLogFrames >= 3)
    }

    /// A crash after a compaction: the log restarted over frames of its older generation (other
    /// salts), which end it, as they do for SQLite; every committed batch is recovered.
    @Test func aCrashAfterACompactionRecoversEveryCommittedBatch() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        var options = dir.options()
        options.compactEveryActions = 30
        let frozen = options
        let batches = sampleBatches(12)
        try await onDisk {
            let journal = try NodeJournal(options: frozen, log: .quiet)
            for batch in batches { try journal.append(batch); try journal.compactIfDue() }
            try dir.copyImage(to: "crash")
            journal.close()
        }
        let crashed = try await recover(dir.options("crash"))
        #expect(crashed.state == fold(batches))
        #expect(crashed.report.snapshotSequence == 30 && crashed.report.journalBatches == 2)
    }

    // MARK: The writer: counters, and fail-stop after a write error

    @Test func theWriterCountsCommitsActionsDurationsAndCompactions() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        var options = dir.options()
        options.compactEveryActions = 4
        let frozen = options
        let batches: [[NodeAction]] = (0..<5).map { index in (0..<3).map { .set(topic: "t\(index).\($0)", value: "v") } }
        let (seen, counters) = try await onDisk {
            let writer = try WriterProbe(frozen)
            let seen = try batches.map { batch in try writer.commit(batch) }
            let counters = writer.writer.counters
            writer.writer.close()
            return (seen, counters)
        }
        #expect(seen == Array(repeating: .committed(3), count: 5))
        #expect(counters.commits == 5 && counters.actionsCommitted == 15)
        #expect(counters.commitDurations.count == 5 && counters.commitTime > .zero)
        #expect(counters.commitDurations.max <= counters.commitTime)
        // 6 actions since the snapshot after the 2nd batch and after the 4th: two compactions.
        #expect(counters.compactions == 2 && !counters.failed)
    }

    @Test func aFullDiskFailsTheCommitAndEveryCommitAfterIt() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        var options = dir.options()
        // A database that may not grow past 40 pages of 4 KiB: a disk that fills up.
        options.maxDatabasePages = 40
        let frozen = options
        let lines = LogLines()
        let value = String(repeating: "v", count: 3000)
        let run = try await onDisk {
            () throws -> (committed: [[NodeAction]], failure: WriterProbe.Seen?, after: WriterProbe.Seen, counters: JournalCounters) in
            let writer = try WriterProbe(frozen, log: lines.logger)
            var committed: [[NodeAction]] = []
            var failure: WriterProbe.Seen?
            for index in 0..<200 {
                let batch: [NodeAction] = [.set(topic: "t\(index)", value: value)]
                let seen = try writer.commit(batch)
                guard seen == .committed(1) else {
                    failure = seen
                    break
                }
                committed.append(batch)
            }
            let after = try writer.commit([.set(topic: "after", value: "1")])
            let counters = writer.writer.counters
            writer.writer.close()
            return (committed, failure, after, counters)
        }
        #expect(run.committed.count > 5 && run.committed.count < 40, "\(run.committed.count) batches fit")
        #expect(run.failure == .failed(count: 1, code: 13), "SQLITE_FULL, for the one action of the batch")
        #expect(run.after == .failed(count: 1, code: 13), "fail-stop: nothing is written after the first error")
        #expect(run.counters.failed && run.counters.commits == run.committed.count && run.counters.actionsCommitted == run.committed.count)
        #expect(lines.contains("journal_commit_failed") && lines.contains("restart"))
        // A restart (the disk has room again) finds exactly what was reported committed.
        let recovered = try await recover(dir.options())
        #expect(recovered.state == fold(run.committed))
        #expect(recovered.lastSequence == UInt64(run.committed.count))
    }

    @Test func aFailedCompactionKeepsTheBatchBeforeItAndStopsTheJournal() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        // 100 actions of 4,000 bytes in the journal: a snapshot of them needs about 100 pages.
        let filled: [[NodeAction]] = (0..<100).map { [.set(topic: "t\($0)", value: String(repeating: "v", count: 4000))] }
        try await append(filled, dir.options())
        let pages = try fileSize(dir.options().databasePath) / 4096
        var options = dir.options()
        options.maxDatabasePages = pages + 4  // room for a small row, not for the snapshot
        options.compactEveryActions = 1
        let frozen = options
        let lines = LogLines()
        let tiny: [NodeAction] = [.set(topic: "tiny", value: "1")]
        let (seen, counters) = try await onDisk { () throws -> ([WriterProbe.Seen], JournalCounters) in
            let writer = try WriterProbe(frozen, log: lines.logger)
            var seen = [try writer.commit(tiny)]
            seen.append(try writer.next())  // the compaction's report
            seen.append(try writer.commit([.set(topic: "later", value: "2")]))
            let counters = writer.writer.counters
            writer.writer.close()
            return (seen, counters)
        }
        #expect(seen == [.committed(1), .failed(count: 0, code: 13), .failed(count: 1, code: 13)])
        #expect(counters.commits == 1 && counters.compactions == 0 && counters.failed)
        #expect(lines.contains("journal_compaction_failed"))
        // The batch that was answered committed is there; the compaction left nothing behind.
        let recovered = try await recover(dir.options())
        #expect(recovered.state == fold(filled + [tiny]))
        #expect(recovered.report.snapshotSequence == 0 && recovered.lastSequence == 101)
    }

}

// MARK: - Helpers

/// Runs disk work (fsyncs, a 100,000-row recovery) on a thread of its own: it must not hold one
/// of the cooperative pool's threads, through which nodes of the other suites answer.
private func onDisk<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await offPool(body)
}

/// What a journal recovered, kept after it is closed.
private struct Recovered: Sendable {
    let state: DurableState
    let report: RecoveryReport
    let lastSequence: UInt64

    init(_ journal: NodeJournal) {
        state = DurableState(journal.state)
        report = journal.report
        lastSequence = journal.lastSequence
    }
}

/// Opens the journal at `options`, takes what it recovered and closes it.
private func recover(_ options: DurableOptions, log: NodeLogger = .quiet) async throws -> Recovered {
    try await onDisk {
        let journal = try NodeJournal(options: options, log: log)
        defer { journal.close() }
        return Recovered(journal)
    }
}

/// The message of the refusal to open `options` (nil when it opened).
private func refusal(_ options: DurableOptions) async throws -> String? {
    try await onDisk { () -> String? in
        do throws(DurableStateError) {
            try NodeJournal(options: options, log: .quiet).close()
            return nil
        } catch {
            return error.message
        }
    }
}

/// Appends every batch, each its own commit, and closes the journal.
private func append(_ batches: [[NodeAction]], _ options: DurableOptions) async throws {
    try await onDisk {
        let journal = try NodeJournal(options: options, log: .quiet)
        for batch in batches { try journal.append(batch); try journal.compactIfDue() }
        journal.close()
    }
}

/// Appends every batch and copies the files to "crash" while the journal is still open.
private func crashImage(_ dir: Scratch, _ batches: [[NodeAction]]) async throws {
    try await onDisk {
        let journal = try NodeJournal(options: dir.options(), log: .quiet)
        for batch in batches { try journal.append(batch); try journal.compactIfDue() }
        try dir.copyImage(to: "crash")
        journal.close()
    }
}

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

/// Runs `sql` on the database at `path`: the node's files changed behind its back.
private func execute(_ path: String, _ sql: String) throws {
    let db = try SQLiteConnection(path: path)
    defer { db.close() }
    try db.execute(sql)
}

/// The first column of the first row `sql` finds in the database at `path`.
private func scalar(_ path: String, _ sql: String) throws -> String? {
    let db = try SQLiteConnection(path: path)
    defer { db.close() }
    return try db.scalarText(sql)
}

/// Flips one byte of a row's payload in place, leaving its checksum: bit rot in the file.
private func rewriteBlob(_ path: String, table: String, key: String, where condition: String) throws {
    let db = try SQLiteConnection(path: path)
    defer { db.close() }
    let read = try db.prepare("SELECT \(key), payload FROM \(table) WHERE \(condition)")
    guard try read.step() else { throw SQLiteError(code: 12, message: "no row where \(condition)", operation: "test") }
    let row = read.int64(0)
    var payload = read.blob(1)
    payload[payload.count / 2] ^= 0x01
    read.reset()
    let write = try db.prepare("UPDATE \(table) SET payload = ? WHERE \(key) = ?")
    try write.bind(1, blob: payload)
    try write.bind(2, row)
    try write.run()
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

/// A journal writer whose reports a test waits for, one at a time (on a thread of its own: it
/// blocks).
private final class WriterProbe: Sendable {
    /// A report, comparable: a failure by its SQLite primary code.
    enum Seen: Equatable, Sendable {
        case committed(Int)
        case failed(count: Int, code: Int32)
    }

    /// The reports as they arrive on the writer's thread.
    private final class Inbox: Sendable {
        let reports = Mutex<[Seen]>([])
        let arrived = DispatchSemaphore(value: 0)
    }

    let writer: JournalWriter
    private let inbox = Inbox()

    init(_ options: DurableOptions, log: NodeLogger = .quiet) throws {
        let inbox = self.inbox
        writer = try JournalWriter.start(options: options, log: log) { outcome in
            let seen: Seen =
                switch outcome {
                case .committed(let count): .committed(count)
                case .failed(let count, let error): .failed(count: count, code: error.code & 0xff)
                }
            inbox.reports.withLock { $0.append(seen) }
            inbox.arrived.signal()
        }.writer
    }

    /// Submits `batch` and returns the writer's next report.
    func commit(_ batch: [NodeAction]) throws -> Seen {
        writer.submit(batch)
        return try next()
    }

    /// The next report, within 30 s.
    func next() throws -> Seen {
        guard inbox.arrived.wait(timeout: .now() + 30) == .success else {
            throw SQLiteError(code: 0, message: "no report from the journal writer within 30 s", operation: "test")
        }
        return inbox.reports.withLock { $0.removeFirst() }
    }
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
