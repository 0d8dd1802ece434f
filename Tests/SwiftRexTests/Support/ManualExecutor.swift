import SwiftRex
import Synchronization

/// A serial executor that runs nothing until the test calls `runAll()`: lets a test put several
/// dispatches into one batch, deterministically.
final class ManualExecutor: ClosureRunningExecutor, Sendable {
    private let queue = Mutex<[@Sendable () -> Void]>([])
    private let running = Mutex(false)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        execute { job.runSynchronously(on: executor) }
    }

    func execute(_ work: @escaping @Sendable () -> Void) {
        queue.withLock { $0.append(work) }
    }

    /// Runs queued work (and whatever it queues) until nothing is left.
    func runAll() {
        while true {
            let next = queue.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            guard let next else { return }
            running.withLock { $0 = true }
            next()
            running.withLock { $0 = false }
        }
    }

    func checkIsolated() {
        precondition(running.withLock { $0 }, "not on the manual executor")
    }

    var pending: Int { queue.withLock { $0.count } }
}
