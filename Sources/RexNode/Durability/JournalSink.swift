import RexCluster

/// Where ``DurableDispatch`` hands the actions it admitted: the node's ``JournalWriter``, which
/// reports their commit back through ``DurableDispatch/handle(_:)`` — or, in a test, a recorder
/// whose reports the test gives by hand, so the actions wait exactly as long as it wants.
protocol JournalSink<Action>: AnyObject, Sendable {
    associatedtype Action: Sendable
    /// Queues actions for the next commit, in order.
    func submit(_ actions: [Action])
    /// What the sink has committed so far, for the metrics.
    var counters: JournalCounters { get }
}

extension JournalWriter: JournalSink {}
