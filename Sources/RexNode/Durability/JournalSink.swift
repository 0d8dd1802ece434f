import RexCluster
import RexFeeds

/// Where ``DurableDispatch`` hands the actions it admitted: the node's ``JournalWriter``, which
/// reports their commit back through ``DurableDispatch/handle(_:)`` — or, in a test, a recorder
/// whose reports the test gives by hand, so the actions wait exactly as long as it wants.
protocol JournalSink: AnyObject, Sendable {
    /// Queues actions for the next commit, in order.
    func submit(_ actions: [NodeAction])
    /// What the sink has committed so far, for the metrics.
    var counters: JournalCounters { get }
}

extension JournalWriter: JournalSink {}
