import Foundation
import SwiftRex

/// A serial executor that owns one thread and runs plain closures too, so the benchmark can
/// dispatch from the store's own executor (as rexbench's dispatch mode (a) does).
final class ThreadExecutor: ClosureRunningExecutor, @unchecked Sendable {
    // @unchecked Sendable: `pending` and `stopped` are only touched while holding `condition`
    // (an NSCondition, i.e. a mutex); `thread` is written once in init, before it is shared.
    private let condition = NSCondition()
    private var pending: [() -> Void] = []
    private var stopped = false
    private var thread: Thread?

    init(name: String) {
        let thread = Thread { [unowned self] in self.loop() }
        thread.name = name
        self.thread = thread
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        submit { job.runSynchronously(on: executor) }
    }

    func execute(_ work: @escaping @Sendable () -> Void) { submit(work) }

    func checkIsolated() {
        precondition(Thread.current === thread, "not on the ThreadExecutor's thread")
    }

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
