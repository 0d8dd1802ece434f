import Foundation
import SwiftRex
import Synchronization

/// A serial executor that owns one dedicated thread, as a node's reactor thread would.
///
/// Jobs and plain closures share one FIFO; the thread takes the whole queue at once and runs it,
/// so a burst of submissions costs one wake-up. Conforming to `ClosureRunningExecutor` lets the
/// store wake it with a closure instead of a task hop, and lets the benchmark run code "on the
/// store's executor" exactly as the store's own drain does.
final class ThreadExecutor: ClosureRunningExecutor, @unchecked Sendable {
    // @unchecked Sendable: the queue and the stop flag are only touched while holding `condition`
    // (an NSCondition, i.e. a mutex); the thread id is an Atomic written once before `init` returns.
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var pending: [() -> Void] = []
    /// Guarded by `condition`.
    private var stopped = false
    private let threadID = Atomic<UInt>(0)

    init(name: String) {
        let thread = Thread { [unowned self] in self.loop() }
        thread.name = name
        thread.start()
        // Wait until the thread has published its id, so `isCurrent` is meaningful from here on.
        while threadID.load(ordering: .acquiring) == 0 { sched_yield() }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        submit { job.runSynchronously(on: executor) }
    }

    func execute(_ work: @escaping @Sendable () -> Void) {
        submit(work)
    }

    func checkIsolated() {
        precondition(isCurrent, "not on the ThreadExecutor's thread")
    }

    /// Whether the caller runs on this executor's thread.
    var isCurrent: Bool { threadID.load(ordering: .relaxed) == currentThreadID() }

    /// Lets the thread finish after the work already queued.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func submit(_ work: @escaping () -> Void) {
        condition.lock()
        pending.append(work)
        if pending.count == 1 { condition.signal() }
        condition.unlock()
    }

    private func loop() {
        threadID.store(currentThreadID(), ordering: .releasing)
        var batch: [() -> Void] = []
        while true {
            condition.lock()
            while pending.isEmpty && !stopped { condition.wait() }
            if pending.isEmpty && stopped {
                condition.unlock()
                return
            }
            swap(&pending, &batch)
            condition.unlock()
            for work in batch { work() }
            batch.removeAll(keepingCapacity: true)
        }
    }
}

func currentThreadID() -> UInt {
    UInt(pthread_self())
}
