import Dispatch
import RexCluster

/// A task executor that runs its jobs on a serial Dispatch queue of its own: async work that
/// must not wait for Swift's cooperative pool (one thread per core, which blocking work in the
/// same process can hold for seconds) — a node's watch rounds, which await the store's keep
/// set and then encode documents for every watcher.
///
/// A task started with `Task(executorPreference:)` runs its nonisolated code here; where it
/// awaits an actor (the store, on the reactor) it runs there and comes back here after.
final class DispatchQueueExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        // A queue of its own (Dispatch gives it a thread when it has work, past the core count
        // if need be), not a global concurrent one: the jobs of one round run one at a time.
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
