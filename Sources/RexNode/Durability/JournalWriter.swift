import Dispatch
import Foundation
import RexCluster
import SQLite
import Synchronization

/// The thread that owns a node's ``NodeJournal``: it takes every action queued since its last
/// commit, commits them as one transaction (group commit), then reports how many are done.
///
/// The reactor never waits on a disk: it queues actions with `submit` and learns of their commit
/// through `onCommit` (hopped onto the reactor by the caller). While one commit's fsync runs,
/// the next batch gathers, so the batch grows with the load and the commits per second stay
/// bounded by the disk, not by the actions.
final class JournalWriter<Feature: ClusterFeature>: Sendable {
    private struct Queue {
        var actions: [Feature.Action] = []
        var closing = false
    }

    private let queue = Mutex(Queue())
    private let tally = Mutex(JournalCounters())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let log: NodeLogger

    private init(log: NodeLogger) {
        self.log = log
    }

    /// Opens and recovers the journal on a new writer thread; returns once recovery is done.
    ///
    /// - Throws: ``DurableStateError`` when the state cannot be used (the thread is gone then).
    static func start(
        options: DurableOptions, log: NodeLogger, onCommit: @escaping @Sendable (JournalOutcome) -> Void
    ) throws(DurableStateError) -> (writer: JournalWriter, state: OperatorActionFold<Feature.Action, Feature.State>, report: RecoveryReport)
    {
        let writer = JournalWriter(log: log)
        let opened = Mutex<Result<(OperatorActionFold<Feature.Action, Feature.State>, RecoveryReport), DurableStateError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread {
            nameThisThread("rexnode-journal")
            let journal: NodeJournal<Feature>
            do {
                journal = try NodeJournal(options: options, log: log)
            } catch {
                opened.withLock { $0 = .failure(error as? DurableStateError ?? DurableStateError("\(error)")) }
                ready.signal()
                writer.finished.signal()
                return
            }
            opened.withLock { $0 = .success((journal.state, journal.report)) }
            ready.signal()
            writer.run(journal, onCommit: onCommit)
        }
        thread.name = "rexnode-journal"
        thread.start()
        ready.wait()
        switch opened.withLock({ $0 }) {
        case .success(let (state, report)): return (writer, state, report)
        case .failure(let error): throw error
        case nil: throw DurableStateError("the journal thread ended without an answer")
        }
    }

    /// What the writer has done so far (from any thread).
    var counters: JournalCounters { tally.withLock { $0 } }

    /// Queues actions for the next commit, in order (from any thread).
    func submit(_ actions: [Feature.Action]) {
        guard !actions.isEmpty else { return }
        // Only the submit that finds the queue empty wakes the writer: it takes the whole queue
        // each time, so a signal is already on its way for any later one. One wake-up (a futex
        // call, a context switch on a busy machine) per commit instead of one per reactor turn.
        let wakeWriter = queue.withLock { queue -> Bool in
            guard !queue.closing else { return false }
            let wasEmpty = queue.actions.isEmpty
            queue.actions.append(contentsOf: actions)
            return wasEmpty
        }
        if wakeWriter { wake.signal() }
    }

    /// Commits what is queued, closes the database and ends the thread (waits for it, up to
    /// `timeout`).
    func close(timeout: Duration = .seconds(10)) {
        let first = queue.withLock { queue -> Bool in
            defer { queue.closing = true }
            return !queue.closing
        }
        guard first else { return }
        wake.signal()
        let (seconds, attoseconds) = timeout.components
        let nanos = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
        if finished.wait(timeout: .now() + .nanoseconds(nanos)) == .timedOut {
            log.error("journal_close_timeout", ["timeout_ms": "\(timeout.wholeMilliseconds)"])
        }
    }

    private func run(_ journal: NodeJournal<Feature>, onCommit: @Sendable (JournalOutcome) -> Void) {
        let pace: Duration = journal.options.mode == .none ? .milliseconds(1) : .zero
        defer {
            journal.close()
            let counters = self.counters
            log.info(
                "journal_closed",
                [
                    "commits": "\(counters.commits)", "actions": "\(counters.actionsCommitted)", "last_seq": "\(journal.lastSequence)",
                    "actions_per_commit": counters.commits > 0 ? "\(counters.actionsCommitted / counters.commits)" : "0",
                    "mean_commit_ms": counters.commits > 0
                        ? String(format: "%.2f", counters.commitTime.milliseconds / Double(counters.commits)) : "0",
                    "max_commit_ms": String(format: "%.2f", counters.commitDurations.max.milliseconds),
                    "compactions": "\(counters.compactions)", "failed": "\(counters.failed)",
                ])
            finished.signal()
        }
        var batch: [Feature.Action] = []
        // Fail-stop: after the first write error nothing more is written (what is queued, and
        // every later batch, is reported failed), because the database's state after an error
        // is no longer known to be the fold of what was answered.
        var failure: SQLiteError?
        while true {
            wake.wait()
            let closing = queue.withLock { queue -> Bool in
                swap(&queue.actions, &batch)
                return queue.closing
            }
            if !batch.isEmpty {
                if let failure {
                    onCommit(.failed(count: batch.count, error: failure))
                } else {
                    failure = commit(batch, to: journal, onCommit: onCommit)
                }
                batch.removeAll(keepingCapacity: true)
                // `none` answers before the commit, so nothing waits on it: gather for a moment
                // rather than commit every reactor turn's few actions on their own (in `batch`
                // the fsync itself is that moment).
                if pace > .zero, !closing { Thread.sleep(forTimeInterval: Double(pace.components.attoseconds) / 1e18) }
            }
            // Signals pile up while a commit runs: later waits return at once and find nothing.
            if closing, queue.withLock({ $0.actions.isEmpty }) { return }
        }
    }

    /// Commits one batch and reports it, then compacts if that is due; returns the error that
    /// stopped the journal, if one did.
    ///
    /// A compaction runs after the batch is reported committed, in a transaction of its own: if
    /// it fails, the batch stays committed (and answered so), the compaction is rolled back, and
    /// only the actions after it are refused.
    private func commit(_ batch: [Feature.Action], to journal: NodeJournal<Feature>, onCommit: @Sendable (JournalOutcome) -> Void)
        -> SQLiteError?
    {
        do {
            let start = ContinuousClock.now
            try journal.append(batch)
            let took = ContinuousClock.now - start
            tally.withLock { $0.committed(batch.count, in: took) }
            onCommit(.committed(count: batch.count))
        } catch {
            tally.withLock { $0.failed = true }
            log.error(
                "journal_commit_failed",
                [
                    "error": "\(error)", "actions": "\(batch.count)",
                    "reason":
                        "the node refuses operator actions from now on (notDurable); free the disk or fix the data directory, then restart it",
                ])
            onCommit(.failed(count: batch.count, error: error))
            return error
        }
        do {
            if try journal.compactIfDue() { tally.withLock { $0.compactions += 1 } }
        } catch {
            tally.withLock { $0.failed = true }
            log.error(
                "journal_compaction_failed",
                [
                    "error": "\(error)",
                    "reason":
                        "the node refuses operator actions from now on (notDurable); free the disk or fix the data directory, then restart it",
                ])
            // No action is lost with it; the dispatch learns now, not at its next batch.
            onCommit(.failed(count: 0, error: error))
            return error
        }
        return nil
    }
}

/// Names the calling thread at the OS level (top -H, perf, /proc/self/task/*/comm): Foundation's
/// `Thread.name` does not always reach it (the reactor names its thread the same way).
private func nameThisThread(_ name: String) {
    let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    defer { close(fd) }
    var bytes = Array(name.utf8.prefix(15))
    _ = write(fd, &bytes, bytes.count)
}
