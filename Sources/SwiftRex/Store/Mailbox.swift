#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// One input to the store's executor.
enum MailboxItem<Action: Sendable> {
    /// An action to process. `liveness` is set when a run (effect or channel) sent it; `depth`
    /// counts how many synchronous feedback hops led to it (for runaway detection).
    case action(DispatchedAction<Action>, liveness: Liveness?, depth: Int)
    /// A one-shot run or a pipeable channel called `complete`.
    case completed(key: AnyHashableSendable, generation: UInt64)
    /// The engine's timer driver woke: fire due timers.
    case timersDue
    /// Evaluate supervise and reconcile even if no action mutated state (at store init).
    case reconcile
}

/// The thread-safe queue between `dispatch` (any thread) and the store's executor.
///
/// Appending takes one short lock; the first append after the executor went idle also schedules a
/// drain (exactly one drain is scheduled at a time). The executor takes the whole queue at once,
/// so a burst of dispatches costs one wake-up.
final class Mailbox<Action: Sendable>: Sendable {
    private struct Queue: ~Copyable {
        var items = MoveQueue<MailboxItem<Action>>()
        var drainScheduled = false
        var closed = false
        var maxDepth = 0
    }

    private let queue = Mutex(Queue())
    private let scheduleDrain: @Sendable () -> Void
    /// The thread currently draining (0 when none) and the feedback depth of the action it
    /// processes (-1 while it processes no action — a completion, a timer, a diagnostic — so
    /// what is sent then starts at depth 0). Written when a drain starts and ends and when the
    /// depth changes, not per action: every `dispatch` from another thread reads them.
    private let drainingThread = Atomic<UInt>(0)
    private let currentDepth = Atomic<Int>(-1)

    init(scheduleDrain: @escaping @Sendable () -> Void) {
        self.scheduleDrain = scheduleDrain
    }

    /// Queues an item; returns false if the mailbox is closed (the store was released).
    @discardableResult
    func enqueue(_ item: consuming MailboxItem<Action>) -> Bool {
        var pending = Optional(item)  // moved into the queue, not copied
        let (accepted, wake) = queue.withLock { queue -> (Bool, Bool) in
            guard !queue.closed else { return (false, false) }
            queue.items.append(pending.take().unsafelyUnwrapped)
            if queue.items.count > queue.maxDepth { queue.maxDepth = queue.items.count }
            guard !queue.drainScheduled else { return (true, false) }
            queue.drainScheduled = true
            return (true, true)
        }
        if wake { scheduleDrain() }
        return accepted
    }

    /// Queues an action, computing its feedback depth: an action sent synchronously while the
    /// executor processes another one is one hop deeper than that action.
    @discardableResult
    func enqueueAction(_ action: consuming DispatchedAction<Action>, liveness: Liveness?) -> Bool {
        var depth = 0
        if drainingThread.load(ordering: .relaxed) == Self.currentThread {
            depth = max(currentDepth.load(ordering: .relaxed) + 1, 0)
        }
        return enqueue(.action(action, liveness: liveness, depth: depth))
    }

    /// Takes everything queued, swapping in `spare` (emptied) to reuse its capacity. When nothing
    /// is queued, marks the drain finished so the next enqueue schedules a new one.
    func takeAll(swappingWith spare: inout MoveQueue<MailboxItem<Action>>) {
        spare.removeAll()
        queue.withLock { queue in
            queue.items.swapContents(with: &spare)
            if spare.isEmpty { queue.drainScheduled = false }
        }
    }

    /// Items waiting now, and the most ever waiting at once.
    var depth: (current: Int, max: Int) { queue.withLock { ($0.items.count, $0.maxDepth) } }

    /// Whether items are queued or a drain is scheduled.
    var isBusy: Bool { queue.withLock { !$0.items.isEmpty || $0.drainScheduled } }

    /// Stops accepting items and drops what is queued.
    func close() {
        queue.withLock { queue in
            queue.closed = true
            queue.items.removeAll()
        }
    }

    /// The calling thread starts draining; nothing is being processed yet.
    func beginDrain() {
        currentDepth.store(-1, ordering: .relaxed)
        drainingThread.store(Self.currentThread, ordering: .relaxed)
    }

    /// The draining thread now processes something `depth` hops deep (-1: not an action).
    func setProcessingDepth(_ depth: Int) {
        currentDepth.store(depth, ordering: .relaxed)
    }

    func endDrain() {
        drainingThread.store(0, ordering: .relaxed)
    }

    private static var currentThread: UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }
}
