import RexCluster

/// What a node found in its data directory at start, for the `recovered` log line.
public struct RecoveryReport: Sendable, Equatable {
    /// The last action sequence number the snapshot holds (0: no snapshot yet).
    public var snapshotSequence: UInt64 = 0
    /// Entries (feeds, follows, peer changes) the snapshot held.
    public var snapshotEntries = 0
    /// Journal batches and actions replayed after the snapshot.
    public var journalBatches = 0
    /// Actions in those batches.
    public var journalActions = 0
    /// The last action sequence number recovered.
    public var lastSequence: UInt64 = 0
    /// The write-ahead log's tail that was not committed (torn, cut short or damaged): frames
    /// and bytes ignored, then truncated.
    public var discardedLogFrames = 0
    /// Bytes of a frame cut short.
    public var discardedLogBytes = 0
    /// Journal rows at the end whose checksum failed: removed.
    public var truncatedJournalBatches = 0
    /// Wall time of the recovery, milliseconds.
    public var elapsedMs = 0

    /// Nothing recovered yet.
    public init() {}

    /// Log fields.
    var fields: [String: String] {
        [
            "snapshot_seq": "\(snapshotSequence)", "snapshot_entries": "\(snapshotEntries)",
            "journal_batches": "\(journalBatches)", "journal_actions": "\(journalActions)", "last_seq": "\(lastSequence)",
            "discarded_log_frames": "\(discardedLogFrames)", "discarded_log_bytes": "\(discardedLogBytes)",
            "truncated_batches": "\(truncatedJournalBatches)", "elapsed_ms": "\(elapsedMs)",
        ]
    }
}
