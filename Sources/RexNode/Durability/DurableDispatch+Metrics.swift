import RexCluster
import RexControl

extension DurableDispatch {
    /// The journal's part of the metrics, on the reactor: the pending count is the dispatch's,
    /// the commit counters the writer's (read under its lock), the tails recovery's.
    func journalMetrics() -> MetricsDocument.Journal {
        MetricsDocument.Journal(
            counters: journalCounters, mode: mode, pendingActions: pendingActions, failed: hasFailed, recovery: recovery)
    }
}

extension MetricsDocument.Journal {
    /// The document from what the journal counted. `failed` is the dispatch's or the writer's
    /// (the writer knows first; the dispatch once the report reached the reactor).
    init(counters: JournalCounters, mode: DurabilityMode, pendingActions: Int, failed: Bool, recovery: RecoveryReport) {
        self.init(
            durability: mode, commits: counters.commits, actionsCommitted: counters.actionsCommitted,
            commitMs: counters.commitTime.milliseconds,
            commitHistogram: counters.commitDurations.buckets.map {
                MetricsDocument.HistogramBucket(upperEdgeNanoseconds: Int(clamping: $0.upperEdgeNanoseconds), count: $0.count)
            },
            pendingActions: pendingActions, compactions: counters.compactions,
            truncatedLogTails: recovery.discardedLogFrames > 0 || recovery.discardedLogBytes > 0 ? 1 : 0,
            truncatedJournalTails: recovery.truncatedJournalBatches, failed: failed || counters.failed)
    }
}
