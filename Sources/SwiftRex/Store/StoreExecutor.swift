import Dispatch

/// A serial executor that can also run a plain closure.
///
/// The store wakes its executor once per burst of dispatches; when the executor can run a closure
/// directly, that wake-up costs one enqueue instead of a task hop. The node's reactor thread and
/// the default dispatch-queue executor both conform.
public protocol ClosureRunningExecutor: SerialExecutor {
    /// Runs `work` on this executor, after the jobs already queued.
    func execute(_ work: @escaping @Sendable () -> Void)
}

/// The serial executor a store runs on, chosen at init.
public struct StoreExecutor: Sendable {
    @usableFromInline
    enum Kind: Sendable {
        case main
        case closureRunning(any ClosureRunningExecutor)
        case serial(any SerialExecutor)
    }

    @usableFromInline let kind: Kind

    /// The main actor (apps with a main run loop or an async `main`).
    public static var main: StoreExecutor { StoreExecutor(kind: .main) }

    /// A new private serial dispatch queue (the default).
    public static func queue(label: String = "SwiftRex.Store") -> StoreExecutor {
        StoreExecutor(kind: .closureRunning(DispatchQueueExecutor(label: label)))
    }

    /// A custom executor, such as a dedicated thread that owns non-thread-safe resources.
    public static func custom(_ executor: some SerialExecutor) -> StoreExecutor {
        if let direct = executor as? any ClosureRunningExecutor { return StoreExecutor(kind: .closureRunning(direct)) }
        return StoreExecutor(kind: .serial(executor))
    }

    var unownedExecutor: UnownedSerialExecutor {
        switch kind {
        case .main: MainActor.sharedUnownedExecutor
        case .closureRunning(let executor): executor.asUnownedSerialExecutor()
        case .serial(let executor): executor.asUnownedSerialExecutor()
        }
    }
}

/// A serial executor backed by a private dispatch queue.
final class DispatchQueueExecutor: ClosureRunningExecutor {
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func execute(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
