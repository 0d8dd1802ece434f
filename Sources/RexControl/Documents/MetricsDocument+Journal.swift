extension MetricsDocument {
    /// A durable node's journal (`rexnode --data-dir`): what it committed since the node
    /// started, what waits for a commit now, and what recovery cut off at start.
    public struct Journal: Codable, Sendable, Equatable {
        /// When the node answers an accepted action (`--durability`).
        public var durability: DurabilityMode
        /// Transactions committed, each holding one batch of actions (group commit).
        public var commits: Int
        /// Operator actions in those commits.
        public var actionsCommitted: Int
        /// The commits' wall time summed, in ms (the transaction, with its fsync in `batch`).
        public var commitMs: Double
        /// The non-empty buckets of every commit's duration, `[upper edge in ns, count]`.
        public var commitHistogram: [HistogramBucket]
        /// Actions accepted by the control endpoint and not yet reported on by the journal.
        public var pendingActions: Int
        /// Snapshots written, each folding the journal before it.
        public var compactions: Int
        /// At start: 1 when the write-ahead log ended in a transaction that never committed
        /// (torn or damaged), which was discarded; else 0.
        public var truncatedLogTails: Int
        /// At start: journal rows at the end that failed their checksum, removed.
        public var truncatedJournalTails: Int
        /// Whether a commit or compaction failed: the node refuses operator actions since.
        public var failed: Bool

        public init(
            durability: DurabilityMode, commits: Int = 0, actionsCommitted: Int = 0, commitMs: Double = 0,
            commitHistogram: [HistogramBucket] = [], pendingActions: Int = 0, compactions: Int = 0, truncatedLogTails: Int = 0,
            truncatedJournalTails: Int = 0, failed: Bool = false
        ) {
            self.durability = durability
            self.commits = commits
            self.actionsCommitted = actionsCommitted
            self.commitMs = commitMs
            self.commitHistogram = commitHistogram
            self.pendingActions = pendingActions
            self.compactions = compactions
            self.truncatedLogTails = truncatedLogTails
            self.truncatedJournalTails = truncatedJournalTails
            self.failed = failed
        }
    }
}
