import RexCluster
public import RexControl

/// Where and how a node keeps its durable state (`rexnode --data-dir DIR`).
public struct DurableOptions: Sendable, Equatable {
    /// The node's data directory (created if missing): `node.db` and its `node.db-wal`.
    public var directory: String
    /// When an accepted operator action is answered (`--durability`, default `batch`).
    public var mode: DurabilityMode
    /// A new snapshot once this many actions are journaled since the last (`--compact-actions`).
    public var compactEveryActions: Int
    /// … or once the journal since the last snapshot holds this many bytes (`--compact-bytes`).
    public var compactEveryBytes: Int
    /// The most accepted actions waiting for their commit; past it a dispatch is refused
    /// (`limitReached`) until the journal catches up.
    public var maxPendingActions: Int
    /// … or while this many bytes of names and values wait (a slow disk must not cost memory
    /// without bound).
    public var maxPendingBytes: Int
    /// The most pages the database may grow to (SQLite's `max_page_count`, set once recovery is
    /// done; below the current size it means the current size): past it a commit fails with
    /// `SQLITE_FULL`, as on a full disk. Unset in a node; tests use it to make a disk full.
    var maxDatabasePages: Int?

    /// A data directory and how the node writes it: `batch` commits (fsync) before it answers, `none` answers first;
    /// compaction every so many actions or bytes; at most so many actions (and bytes) waiting for the journal.
    public init(
        directory: String, mode: DurabilityMode = .batch, compactEveryActions: Int = 50_000,
        compactEveryBytes: Int = 16 << 20, maxPendingActions: Int = 100_000, maxPendingBytes: Int = 64 << 20
    ) {
        self.maxPendingBytes = maxPendingBytes
        self.directory = directory
        self.mode = mode
        self.compactEveryActions = compactEveryActions
        self.compactEveryBytes = compactEveryBytes
        self.maxPendingActions = maxPendingActions
    }

    /// The database file inside `directory`.
    public var databasePath: String { directory + "/node.db" }
}
