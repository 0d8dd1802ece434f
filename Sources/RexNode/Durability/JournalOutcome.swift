import SQLite

/// What became of the actions submitted to a ``JournalWriter`` so far, in order.
enum JournalOutcome: Sendable {
    /// The next `count` submitted actions are committed.
    case committed(count: Int)
    /// The next `count` submitted actions could not be committed (nor any after them). A
    /// count of 0: the journal stopped after a commit (its compaction failed).
    case failed(count: Int, error: SQLiteError)
}
