import Dispatch
import Foundation
import RexCluster
public import SwiftRex
import Synchronization
package import ZMQ

/// A serial executor backed by one dedicated thread that owns every ZeroMQ socket of a node.
///
/// The loop runs queued jobs, due timers and its turn-end hooks, then `zmq_poll`s the registered
/// sockets plus an `eventfd`, for no longer than the next timer's deadline. A store on this
/// executor schedules on its injected clock; the reactor's own timers (``schedule(at:_:)``) are for
/// work that already runs on this thread and would otherwise hop through Swift's cooperative pool
/// and back for every tick (the membership's protocol timer). Other threads hand work over with
/// `execute` (or Swift concurrency jobs via `enqueue`), which appends to a locked queue and
/// writes the eventfd only if the loop is (about to be) blocked in poll.
///
/// Why this is safe: libzmq sockets are not thread-safe, and every socket of a node is created,
/// read, written and closed by closures running on this one thread — the store runs on this
/// executor, so channel bodies, handlers and reconcile do too. The reactor's own loop state
/// (poller, readers, hooks) is likewise only touched on this thread; the thread-only methods
/// check it with a precondition.
public final class Reactor: ClosureRunningExecutor, @unchecked Sendable {
    // @unchecked Sendable: `jobs`, `polling`, `stopping` and `threadID` are Mutex/Atomic;
    // `loop` is only ever accessed on the reactor thread (every accessor asserts `isCurrent`).

    private struct JobQueue {
        var items: [@Sendable () -> Void] = []
        /// Set by the loop as it exits; later work goes to `retired`.
        var closed = false
    }

    private let jobs = Mutex(JobQueue())
    private let polling = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let closed = Atomic<Bool>(false)
    private let threadID = Atomic<UInt>(0)
    private let finished = DispatchSemaphore(value: 0)
    private let wake = WakeSignal()
    private let loop: LoopState
    /// After the loop exits (its sockets are closed by then), work still handed to the reactor —
    /// say a late read of a released store — runs on this serial queue, so it never hangs.
    private let retired: DispatchQueue
    private static let retiredKey = DispatchSpecificKey<ObjectIdentifier>()
    /// The reactor thread's name (as `top -H` shows it).
    public let name: String
    /// What the reactor's timers run on.
    public let clock: ReactorClock

    /// Starts the reactor thread, its timers on `clock`.
    public init(name: String = "rex-reactor", clock: ReactorClock = .continuous) {
        self.name = name
        self.clock = clock
        loop = LoopState(idleWake: LoopState.defaultIdleWake, clock: clock)
        retired = DispatchQueue(label: name + ".retired")
        startThread()
    }

    /// Starts the reactor thread, whose poll waits at most `idleWake` when nothing is due (a
    /// test makes it long, so that only a timer's deadline or a socket can end a poll).
    init(name: String, idleWake: Duration, clock: ReactorClock = .continuous) {
        self.name = name
        self.clock = clock
        loop = LoopState(idleWake: idleWake, clock: clock)
        retired = DispatchQueue(label: name + ".retired")
        startThread()
    }

    /// The rest of either init, once every property is set: the thread, and its id.
    private func startThread() {
        retired.setSpecific(key: Self.retiredKey, value: ObjectIdentifier(retired))
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.stackSize = 1 << 22
        thread.start()
        while threadID.load(ordering: .acquiring) == 0 { usleep(50) }
    }

    // MARK: - Executor

    public func execute(_ work: @escaping @Sendable () -> Void) {
        let accepted = jobs.withLock { queue -> Bool in
            guard !queue.closed else { return false }
            queue.items.append(work)
            return true
        }
        guard accepted else {
            retired.async(execute: work)
            return
        }
        if polling.load(ordering: .sequentiallyConsistent) { wake.signal() }
    }

    /// Runs a Swift job on the reactor thread (the reactor as an actor's serial executor).
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        execute { job.runSynchronously(on: executor) }
    }

    public func checkIsolated() {
        precondition(isCurrent, "not on reactor thread \(name)")
    }

    /// Whether the caller runs on the reactor thread (or, once stopped, on its retired queue).
    public var isCurrent: Bool {
        if threadID.load(ordering: .relaxed) == Self.currentThread { return true }
        return closed.load(ordering: .acquiring) && DispatchQueue.getSpecific(key: Self.retiredKey) == ObjectIdentifier(retired)
    }

    /// Runs `body` on the reactor and waits for its result. On the reactor itself it runs inline.
    public func sync<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) throws -> Value {
        if isCurrent { return try body() }
        let outcome = Mutex<Result<Value, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        execute {
            let result = Result<Value, any Error> { try body() }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    /// Stops the loop after the jobs already queued and waits for the thread to exit.
    public func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        wake.signal()
        if threadID.load(ordering: .relaxed) != Self.currentThread { finished.wait() }
    }

    // MARK: - Thread-only: readers and turn-end hooks

    /// Calls `handler` on the reactor thread whenever `socket` is readable.
    package func addReader(_ socket: ZMQSocket, _ handler: @escaping () -> Void) -> ReaderToken {
        checkIsolated()
        return loop.addReader(socket, handler)
    }

    /// Stops watching a socket (before closing it).
    public func removeReader(_ token: ReaderToken) {
        checkIsolated()
        loop.removeReader(token)
    }

    /// Calls `body` at the end of every turn of the loop (after the queued jobs,
    /// before it polls or blocks), on the reactor thread: where work buffered during the turn is
    /// handed on, such as a node's published messages. Hooks stop with the loop: work that runs
    /// after it (on the retired queue) must not leave anything buffered for them.
    public func addTurnEndHook(_ body: @escaping () -> Void) -> TurnEndToken {
        checkIsolated()
        return loop.addTurnEndHook(body)
    }

    /// Stops calling a turn-end hook (on the reactor thread).
    public func removeTurnEndHook(_ token: TurnEndToken) {
        checkIsolated()
        loop.turnEndHooks.removeAll { $0.id == token.id }
    }

    // MARK: - Thread-only: timers

    /// The time on the reactor's clock: elapsed since it started.
    public var now: Duration { clock.elapsed() }

    /// Calls `body` on the reactor thread once `deadline` (``now``'s scale) has passed, at the
    /// start of a turn; the poll never waits past the earliest deadline. No thread hop: the
    /// timer costs one comparison a turn and shortens one poll.
    public func schedule(at deadline: Duration, _ body: @escaping () -> Void) -> TimerToken {
        checkIsolated()
        return loop.addTimer(at: deadline, body)
    }

    /// Calls `body` on the reactor thread once `delay` has passed on its clock.
    public func schedule(after delay: Duration, _ body: @escaping () -> Void) -> TimerToken {
        schedule(at: now + max(.zero, delay), body)
    }

    /// Cancels a timer that has not fired (a fired or unknown token is ignored).
    public func cancelTimer(_ token: TimerToken) {
        checkIsolated()
        loop.timers.removeAll { $0.id == token.id }
    }

    // MARK: - Loop

    private static func setOSThreadName(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        // The kernel keeps 15 bytes: take whole characters up to that, never part of one.
        var bytes: [UInt8] = []
        for character in name {
            let encoded = Array(String(character).utf8)
            guard bytes.count + encoded.count <= 15 else { break }
            bytes += encoded
        }
        _ = write(fd, &bytes, bytes.count)
    }

    private func run() {
        // Named from the thread itself, so the OS-level name shows in top -H, perf and gdb.
        // Written to /proc directly: Foundation's `Thread.name` setter did not always reach the
        // OS-level name, and pthread_setname_np is not visible from Swift on Glibc.
        Self.setOSThreadName(name)
        threadID.store(Self.currentThread, ordering: .releasing)
        defer {
            wake.close()
            finished.signal()
        }
        var batch: [@Sendable () -> Void] = []
        while true {
            batch.removeAll(keepingCapacity: true)
            let exiting = jobs.withLock { queue -> Bool in
                swap(&queue.items, &batch)
                if batch.isEmpty, stopping.load(ordering: .sequentiallyConsistent) {
                    queue.closed = true
                    closed.store(true, ordering: .releasing)
                    return true
                }
                return false
            }
            if exiting { return }
            for job in batch { job() }
            loop.fireDueTimers()
            for hook in loop.turnEndHooks { hook.body() }
            if !batch.isEmpty || stopping.load(ordering: .sequentiallyConsistent) { continue }

            polling.store(true, ordering: .sequentiallyConsistent)
            if !jobs.withLock({ $0.items.isEmpty }) || stopping.load(ordering: .sequentiallyConsistent) {
                polling.store(false, ordering: .sequentiallyConsistent)
                continue
            }
            loop.poll(wake: wake, timeout: loop.pollTimeout())
            polling.store(false, ordering: .sequentiallyConsistent)
        }
    }

    static var currentThread: UInt { UInt(pthread_self()) }
}

/// Identifies a registered reader.
public struct ReaderToken: Hashable, Sendable {
    let id: UInt64
}

/// Identifies a reactor timer.
public struct TimerToken: Hashable, Sendable {
    let id: UInt64
}

/// Identifies a turn-end hook.
public struct TurnEndToken: Hashable, Sendable {
    let id: UInt64
}
