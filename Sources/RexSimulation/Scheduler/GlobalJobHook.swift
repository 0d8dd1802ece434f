import Glibc

/// Routes the Swift concurrency jobs that a simulation thread hands to the global executor
/// (unstructured tasks, continuations resumed by the simulated clock, nonisolated async code)
/// into that simulation's own queue, so they run on its one thread in a deterministic order.
///
/// The runtime's `swift_task_enqueueGlobal_hook` is process-wide; it is installed once and
/// decides per enqueueing thread: a thread running a simulation (marked with ``bind(_:)``) keeps
/// its jobs, every other thread's go to the runtime's own pool as before. So tests of other
/// targets running in the same process are not touched.
enum GlobalJobHook {
    typealias Original = @convention(thin) (UnownedJob) -> Void
    typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    /// The thread-local slot holding the running loop (an unretained pointer: the loop outlives
    /// its binding, which `SimLoop.run` removes before it returns).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-local key for the simulation")
        return key
    }()

    /// Whether the hook is in place (false: the runtime does not export it, and the simulation
    /// cannot run deterministically).
    static let installed: Bool = {
        _ = key
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook") else { return false }
        // Written once, before any simulation job exists; a pointer-sized aligned store, which
        // another thread enqueueing at that moment reads either before or after.
        symbol.assumingMemoryBound(to: Hook?.self).pointee = { job, original in
            if let loop = GlobalJobHook.current { loop.enqueueGlobal(job) } else { original(job) }
        }
        return true
    }()

    /// The loop the calling thread runs, if any.
    static var current: SimLoop? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<SimLoop>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Marks the calling thread as running `loop` (nil: no longer).
    static func bind(_ loop: SimLoop?) {
        pthread_setspecific(key, loop.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
    }
}
