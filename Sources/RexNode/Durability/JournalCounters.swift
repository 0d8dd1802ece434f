import RexCluster
import SwiftRex

/// What a node's journal writer has done since the node started (the `rexnode_journal_*`
/// metrics): written on the writer's thread, read by the metrics under the writer's lock.
struct JournalCounters: Sendable, Equatable {
    /// Transactions committed, each holding one batch of actions (group commit).
    var commits = 0
    /// Actions in those commits.
    var actionsCommitted = 0
    /// Wall time of each commit: the insert and the commit, with its fsync in `batch` mode.
    var commitDurations = DurationHistogram()
    /// The sum of those durations.
    var commitTime: Duration = .zero
    /// Snapshots written (each folds the journal before it).
    var compactions = 0
    /// Set once a commit or a compaction failed: the journal takes nothing more.
    var failed = false

    /// Counts one commit of `actions` actions that took `duration`.
    mutating func committed(_ actions: Int, in duration: Duration) {
        commits = commits.addingReportingOverflow(1).overflow ? Int.max : commits + 1
        let (sum, overflow) = actionsCommitted.addingReportingOverflow(actions)
        actionsCommitted = overflow ? Int.max : sum
        commitDurations.record(duration)
        commitTime += duration
    }
}
