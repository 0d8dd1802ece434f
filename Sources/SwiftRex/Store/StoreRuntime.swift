import Dispatch
import Synchronization

/// The part of a store that lives on its executor: state, behavior, engine, and the drain loop.
///
/// An actor whose executor is the one chosen at init, so the compiler checks that state, reduce,
/// supervise and reconcile only ever run there. Inputs arrive through the thread-safe mailbox.
///
/// Specialisable across modules: the initialiser and the per-action path (the drain loop, reduce
/// and produce) are inlinable, so the module that creates a store compiles them for its own
/// action, state and environment types; without that every action goes through value witnesses
/// (about 4× slower dispatch). What runs once per batch or rarer (reconcile, timers, completions,
/// release, diagnostics) stays out of line and generic.
@usableFromInline
final actor StoreRuntime<Action: Sendable, State: Sendable, Environment: Sendable> {
    @usableFromInline nonisolated let executor: StoreExecutor
    @usableFromInline nonisolated let mailbox: Mailbox<Action>
    @usableFromInline nonisolated let published: PublishedState<State>
    @usableFromInline nonisolated let runawayThreshold: Int
    @usableFromInline nonisolated let report: @Sendable (StoreDiagnostic) -> Void

    @usableFromInline let behavior: Behavior<Action, State, Environment>
    @usableFromInline let environment: Environment
    /// The state between batches. During a batch it lives in the batch's `ProduceContext`
    /// (moved out and back, never copied per action), so this is nil only inside `drain`.
    // Unchecked: accessed only on this actor's executor, and never while another access to it
    // is open (each use is one whole read or write); the dynamic check cost ~2 % per batch.
    @exclusivity(unchecked) @usableFromInline var storedState: State?

    /// The current state (between batches: everything in this actor runs outside a batch).
    @inlinable
    var state: State {
        guard let storedState else { preconditionFailure("Internal inconsistency: state read in the middle of a batch") }
        return storedState
    }
    @usableFromInline let engine: EffectEngine<Action>
    /// This store's evaluation of the behavior's supervise, with its memo caches.
    private let supervisor: SupervisorInstance<State, Environment, Action>?
    // Unchecked as `storedState`: only the drain, on this actor's executor, touches it, once
    // per batch through `takeAll` (an inout access nothing else can overlap).
    @exclusivity(unchecked) @usableFromInline var spare = MoveQueue<MailboxItem<Action>>()
    @usableFromInline var released = false
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    @usableFromInline nonisolated var unownedExecutor: UnownedSerialExecutor { executor.unownedExecutor }

    /// Wakes the executor when the mailbox gets its first item; armed by `armDrain`.
    @usableFromInline nonisolated let drainTarget = DrainTarget()

    /// Out of line (the engine and the supervisor are internal to this module); the store calls
    /// `armDrain` right after, before anything can be queued.
    @usableFromInline
    init(
        initial: State,
        behavior: Behavior<Action, State, Environment>,
        environment: Environment,
        clock: any Clock<Duration>,
        executor: StoreExecutor,
        strictChannels: Bool,
        channelClassifier: ChannelClassifier?,
        runawayThreshold: Int,
        interceptor: (any FeedbackInterceptor<Action>)?,
        report: @escaping @Sendable (StoreDiagnostic) -> Void
    ) {
        let target = drainTarget
        let mailbox = Mailbox<Action>(interceptor: interceptor, scheduleDrain: { target.wake() })
        self.executor = executor
        self.mailbox = mailbox
        self.published = PublishedState(initial)
        self.runawayThreshold = runawayThreshold
        self.report = report
        self.behavior = behavior
        self.environment = environment
        self.storedState = initial
        self.supervisor = behavior.supervisor?.makeInstance()
        self.engine = EffectEngine(
            clock: EngineClock(erasing: clock), mailbox: mailbox, strictChannels: strictChannels, classifier: channelClassifier,
            report: report
        )
    }

    /// Points the mailbox's wake-up at this runtime's drain. Inlinable, so the drain it
    /// schedules is the one specialised in the module that created the store.
    @inlinable
    nonisolated func armDrain() {
        let weakSelf = WeakRuntime(self)
        drainTarget.set { weakSelf.runtime?.schedule { $0.drain() } }
    }

    /// Runs `body` on the store's executor, isolated to this runtime.
    @inlinable
    nonisolated func schedule(_ body: @escaping @Sendable (isolated StoreRuntime) -> Void) {
        if case .closureRunning(let direct) = executor.kind {
            direct.execute { self.assumeIsolated { body($0) } }
        } else {
            scheduleIndirectly(body)
        }
    }

    /// `schedule` on the main actor or a plain serial executor (out of line: Dispatch is not a
    /// public import).
    @usableFromInline
    nonisolated func scheduleIndirectly(_ body: @escaping @Sendable (isolated StoreRuntime) -> Void) {
        switch executor.kind {
        case .closureRunning(let direct):
            direct.execute { self.assumeIsolated { body($0) } }
        case .main:
            DispatchQueue.main.async { self.assumeIsolated { body($0) } }
        case .serial:
            Task { await self.run(body) }
        }
    }

    private func run(_ body: @Sendable (isolated StoreRuntime) -> Void) {
        body(self)
    }

    // MARK: - Draining

    /// Processes everything queued, batch by batch, until the mailbox is empty.
    @inlinable
    func drain() {
        mailbox.beginDrain()
        // The depth the mailbox was last told; it is told again only when it changes.
        var toldDepth = -1
        func processing(depth: Int) {
            if depth != toldDepth {
                mailbox.setProcessingDepth(depth)
                toldDepth = depth
            }
        }
        while true {
            mailbox.takeAll(swappingWith: &spare)
            if spare.isEmpty { break }
            if released { continue }
            var mutated = false
            var reconcileRequested = false
            var batchDepth = 0
            // The state moves into the context that every `produce` of the batch reads, so a
            // produce borrows it instead of copying every field of the state per action.
            var context = ProduceContext(state: storedState.take().unsafelyUnwrapped, environment: environment)
            // Loaded once per batch: calling them straight from `behavior` retains each per action.
            let reducer = behavior.reducer
            let producer = behavior.producer
            while let item = spare.popFirst() {
                switch consume item {
                case .action(let dispatched, let liveness, let depth):
                    // A torn-down channel or replaced run is silent.
                    if let liveness, !liveness.isAlive { continue }
                    if depth > runawayThreshold {
                        processing(depth: -1)  // what the diagnostic handler sends starts afresh
                        reportRunaway(dispatched, depth: depth)
                        continue
                    }
                    batchDepth = max(batchDepth, depth)
                    processing(depth: depth)
                    if process(dispatched, in: &context, reducer: reducer, producer: producer) { mutated = true }
                case .completed(let key, let generation):
                    processing(depth: -1)
                    completed(key: key, generation: generation)
                case .timersDue:
                    processing(depth: -1)
                    fireDueTimers()
                case .reconcile:
                    reconcileRequested = true
                }
            }
            storedState = context.storedState
            processing(depth: batchDepth)
            finishBatch(mutated: mutated, reconcile: mutated || reconcileRequested)
            processing(depth: -1)
        }
        mailbox.endDrain()
        resumeIdleWaitersIfIdle()
    }

    /// Runs one action through reduce and produce; returns whether state may have changed.
    @inlinable
    func process(
        _ dispatched: DispatchedAction<Action>,
        in context: inout ProduceContext<State, Environment>,
        reducer: Behavior<Action, State, Environment>.Reduce?,
        producer: Behavior<Action, State, Environment>.Produce?
    ) -> Bool {
        // Called through optional chaining: an `if let` binding retained and released each
        // closure's context per action.
        reducer?(dispatched.action, &context.storedState)
        // Handed straight to the engine (which skips an empty effect): checking `isEmpty` here
        // first kept the effect alive across two uses and copied it.
        // `consume`: the binding hands its effect on; passing it plainly copied the whole effect
        // into `schedule` and destroyed the original (two value-witness calls per action).
        if let effect = producer?(dispatched.action, context) { schedule(consume effect) }
        return reducer != nil
    }

    /// After a batch: evaluate supervise and reconcile once, then publish the state.
    @inlinable
    func finishBatch(mutated: Bool, reconcile: Bool) {
        if reconcile { superviseAndReconcile() }
        if mutated { published.publish(state) }
    }

    // MARK: - Out of line: the engine and the supervisor

    /// Hands a produced effect to the engine. A lone broadcast (a node's publish: one per
    /// message) is recognised here, in code specialised for the store's action type, and goes
    /// straight to the engine's delivery; every other effect is scheduled out of line.
    @inlinable
    func schedule(_ effect: consuming Effect<Action>) {
        // Consumed and switched with `consume`: a switch over a borrowed effect copies its
        // storage first (a retain of every value it holds).
        let storage = (consume effect).components.storage
        switch consume storage {
        case .none:
            return
        case .one(let component):
            if case .broadcast(let value) = component.kind, !component.scheduling.storedCancelsOnly {
                // A broadcast without an id goes nowhere (as the engine's own schedule decides).
                if let key = component.scheduling.id { broadcast(value, into: key) }
            } else {
                schedule(component)
            }
        case .many(let components):
            for component in components { schedule(component) }
        }
    }

    @usableFromInline
    func schedule(_ component: EffectComponent<Action>) {
        engine.schedule(component)
    }

    /// Into the engine's inlinable delivery: a stream of broadcasts into one channel is
    /// delivered by code specialised here (see `EffectEngine.broadcast`).
    @inlinable
    func broadcast(_ value: any Sendable, into key: AnyHashableSendable) {
        engine.broadcast(value, into: key)
    }

    @usableFromInline
    func completed(key: AnyHashableSendable, generation: UInt64) {
        engine.completed(key: key, generation: generation)
    }

    @usableFromInline
    func fireDueTimers() {
        engine.fireDueTimers()
    }

    @usableFromInline
    func reportRunaway(_ dispatched: DispatchedAction<Action>, depth: Int) {
        report(
            StoreDiagnostic(
                kind: .runawayActionLoop,
                message:
                    "action \(dispatched.action) from \(dispatched.source) is \(depth) synchronous hops deep (threshold \(runawayThreshold)); it was dropped"
            ))
    }

    /// Evaluates supervise on the batch's state and lets the engine reconcile the channels.
    @usableFromInline
    func superviseAndReconcile() {
        guard let supervisor else { return }
        // Build = updating the supervise (memos that compare equal build nothing) plus freeing
        // what it does not cache; diff = comparing what it names as changed with what runs
        // and applying the changes.
        let start = ContinuousClock.now
        let change = supervisor.update(state, environment)
        let built = ContinuousClock.now
        engine.reconcile(supervisor.keep, change: change)
        let diffed = ContinuousClock.now
        supervisor.reconciled()
        let end = ContinuousClock.now
        let cycle = end - start
        engine.counters.lastDuration = cycle
        engine.counters.maxDuration = max(engine.counters.maxDuration, cycle)
        engine.counters.totalBuildDuration += (built - start) + (end - diffed)
        engine.counters.totalDiffDuration += diffed - built
        engine.counters.cycleDurations.record(cycle)
    }

    // MARK: - Release

    /// Tears everything down: runs every channel's cancel once and cancels every effect.
    func release() {
        guard !released else { return }
        released = true
        mailbox.close()
        engine.cancelAll(reason: .storeReleased)
        published.removeObservers()
        resumeIdleWaitersIfIdle()
    }

    // MARK: - Introspection and test support

    func keepSnapshot() -> KeepSnapshot { engine.snapshot() }

    /// The engine's counters, without a snapshot of its channels.
    var reconcileCounters: ReconcileCounters { engine.counters }

    /// Whether nothing is queued, no drain is scheduled, and no engine timer is due.
    var isIdle: Bool { !mailbox.isBusy && !engine.hasDueTimers }

    /// Suspends until the store is idle (see `isIdle`).
    func waitUntilIdle() async {
        if isIdle { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    /// Called at the end of every drain: one check of an empty array unless someone waits.
    @usableFromInline
    func resumeIdleWaitersIfIdle() {
        guard !idleWaiters.isEmpty, released || isIdle else { return }
        let waiters = idleWaiters
        idleWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    /// Processes `action` as one batch, bypassing the mailbox (the test kit's `send`).
    func processAsBatch(_ dispatched: DispatchedAction<Action>) -> (before: State, after: State) {
        let before = state
        mailbox.beginDrain()
        mailbox.setProcessingDepth(0)
        var context = ProduceContext(state: storedState.take().unsafelyUnwrapped, environment: environment)
        let mutated = process(dispatched, in: &context, reducer: behavior.reducer, producer: behavior.producer)
        storedState = context.storedState
        finishBatch(mutated: mutated, reconcile: mutated)
        mailbox.endDrain()
        return (before, state)
    }

    var inFlightEffects: Int { engine.inFlightEffectCount }
}

/// Lets the mailbox wake a runtime it cannot reference before the runtime exists.
///
/// The wake-up closure is boxed in a class: keeping a bare optional closure in a `Mutex` and
/// reading it back through `withLock` re-wrapped it in a new reabstraction thunk on every call,
/// so each wake-up got slower and leaked (measured: 36 µs → 1 ms after 30,000 wake-ups).
@usableFromInline
final class DrainTarget: Sendable {
    private final class Wake: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let action = Mutex<Wake?>(nil)

    @usableFromInline init() {}

    @usableFromInline
    func set(_ wake: @escaping @Sendable () -> Void) {
        let boxed = Wake(wake)
        action.withLock { $0 = boxed }
    }

    @usableFromInline
    func wake() { action.withLock { $0 }?.run() }
}

/// A weak reference to a runtime: queued wake-ups must not keep a released store alive.
@usableFromInline
final class WeakRuntime<Action: Sendable, State: Sendable, Environment: Sendable>: Sendable {
    @usableFromInline weak let runtime: StoreRuntime<Action, State, Environment>?

    @inlinable init(_ runtime: StoreRuntime<Action, State, Environment>) {
        self.runtime = runtime
    }
}
