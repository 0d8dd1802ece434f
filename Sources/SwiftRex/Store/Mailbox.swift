// Public: the inlinable enqueue and take paths below use its Mutex and Atomic.
public import Synchronization

// Public: `currentThread` is inlinable (every enqueue asks it; out of line it was 3.5 % of a
// dispatch benchmark's samples). Public only in that it may appear in inlinable code; SwiftRex
// does not re-export it.
#if canImport(Glibc)
public import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif

/// One input to the store's executor.
@usableFromInline
enum MailboxItem<Action: Sendable>: Sendable {
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
///
/// The enqueue and take paths are inlinable: `Store.dispatch` and the drain loop are specialised
/// in the module that names the action type, and so is this.
@usableFromInline
final class Mailbox<Action: Sendable>: Sendable {
    @usableFromInline
    struct Queue: ~Copyable {
        @usableFromInline var items = MoveQueue<MailboxItem<Action>>()
        @usableFromInline var drainScheduled = false
        @usableFromInline var closed = false
        @usableFromInline var maxDepth = 0

        @inlinable init() {}

        /// Appends `pending` (moved out of it) unless closed; returns whether it was accepted and
        /// whether a drain must be scheduled. Forced inline: a client module otherwise kept the
        /// lock's closure as a call of its own per dispatch.
        @inlinable @inline(__always)
        mutating func push(_ pending: inout MailboxItem<Action>?) -> (accepted: Bool, wake: Bool) {
            guard !closed else { return (false, false) }
            items.append(pending.take().unsafelyUnwrapped)
            if items.count > maxDepth { maxDepth = items.count }
            guard !drainScheduled else { return (true, false) }
            drainScheduled = true
            return (true, true)
        }
    }

    @usableFromInline let queue = Mutex(Queue())
    @usableFromInline let scheduleDrain: @Sendable () -> Void
    /// Where actions sent by effects and channels go instead of the queue; nil except under the
    /// test kit (see `FeedbackInterceptor`).
    @usableFromInline let interceptor: (any FeedbackInterceptor<Action>)?
    /// The thread currently draining (0 when none) and the feedback depth of the action it
    /// processes (-1 while it processes no action — a completion, a timer, a diagnostic — so
    /// what is sent then starts at depth 0). Written when a drain starts and ends and when the
    /// depth changes, not per action: every `dispatch` from another thread reads them.
    @usableFromInline let drainingThread = Atomic<UInt>(0)
    @usableFromInline let currentDepth = Atomic<Int>(-1)

    @inlinable
    init(interceptor: (any FeedbackInterceptor<Action>)?, scheduleDrain: @escaping @Sendable () -> Void) {
        self.interceptor = interceptor
        self.scheduleDrain = scheduleDrain
    }

    /// Queues an item; returns false if the mailbox is closed (the store was released).
    @inlinable @inline(__always)
    @discardableResult
    func enqueue(_ item: consuming MailboxItem<Action>) -> Bool {
        var pending = Optional(item)  // moved into the queue, not copied
        let (accepted, wake) = queue.withLock { $0.push(&pending) }
        if wake { scheduleDrain() }
        return accepted
    }

    /// Queues an action dispatched from outside the store (`Store.dispatch`), computing its
    /// feedback depth: an action dispatched synchronously while the executor processes another
    /// one is one hop deeper than that action.
    @inlinable @inline(__always)
    @discardableResult
    func enqueueDispatched(_ action: consuming DispatchedAction<Action>) -> Bool {
        enqueue(.action(action, liveness: nil, depth: feedbackDepth()))
    }

    /// Queues an action sent by a run (an effect or a channel body), unless an interceptor takes
    /// it (the test kit holds these for `receive`).
    @inlinable
    @discardableResult
    func enqueueAction(_ action: consuming DispatchedAction<Action>, liveness: Liveness?) -> Bool {
        if let liveness, let interceptor {
            interceptor.intercept(action, liveness: RunLiveness(liveness))
            return true
        }
        return enqueue(.action(action, liveness: liveness, depth: feedbackDepth()))
    }

    @inlinable
    func feedbackDepth() -> Int {
        guard drainingThread.load(ordering: .relaxed) == Self.currentThread else { return 0 }
        return max(currentDepth.load(ordering: .relaxed) + 1, 0)
    }

    /// Takes everything queued, swapping in `spare` (emptied) to reuse its capacity. When nothing
    /// is queued, marks the drain finished so the next enqueue schedules a new one.
    @inlinable
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
    @inlinable
    func beginDrain() {
        currentDepth.store(-1, ordering: .relaxed)
        drainingThread.store(Self.currentThread, ordering: .relaxed)
    }

    /// The draining thread now processes something `depth` hops deep (-1: not an action).
    @inlinable
    func setProcessingDepth(_ depth: Int) {
        currentDepth.store(depth, ordering: .relaxed)
    }

    @inlinable
    func endDrain() {
        drainingThread.store(0, ordering: .relaxed)
    }

    /// This thread's identity (`pthread_self`), to tell the draining thread's own sends apart.
    @inlinable
    static var currentThread: UInt {
        #if canImport(Glibc)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }
}
