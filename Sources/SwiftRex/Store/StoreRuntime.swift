import Dispatch
import Synchronization

/// The part of a store that lives on its executor: state, behavior, engine, and the drain loop.
///
/// An actor whose executor is the one chosen at init, so the compiler checks that state, reduce,
/// supervise and reconcile only ever run there. Inputs arrive through the thread-safe mailbox.
actor StoreRuntime<Action: Sendable, State: Sendable, Environment: Sendable> {
    nonisolated let executor: StoreExecutor
    nonisolated let mailbox: Mailbox<Action>
    nonisolated let published: PublishedState<State>
    nonisolated let runawayThreshold: Int
    nonisolated let report: @Sendable (StoreDiagnostic) -> Void

    private let behavior: Behavior<Action, State, Environment>
    private let environment: Environment
    /// The state between batches. During a batch it lives in the batch's `ProduceContext`
    /// (moved out and back, never copied per action), so this is nil only inside `drain`.
    private var storedState: State?

    /// The current state (between batches: everything in this actor runs outside a batch).
    var state: State {
        guard let storedState else { preconditionFailure("Internal inconsistency: state read in the middle of a batch") }
        return storedState
    }
    let engine: EffectEngine<Action>
    /// This store's evaluation of the behavior's supervise, with its memo caches.
    private let supervisor: SupervisorInstance<State, Environment, Action>?
    private var spare = MoveQueue<MailboxItem<Action>>()
    private var released = false
    /// Set by the test kit: actions sent by effects and channels are held for `receive`.
    private let testInbox: TestInbox<Action>?
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.unownedExecutor }

    init(
        initial: State,
        behavior: Behavior<Action, State, Environment>,
        environment: Environment,
        clock: EngineClock,
        executor: StoreExecutor,
        strictChannels: Bool,
        channelClassifier: ChannelClassifier? = nil,
        runawayThreshold: Int,
        testInbox: TestInbox<Action>?,
        report: @escaping @Sendable (StoreDiagnostic) -> Void
    ) {
        self.testInbox = testInbox
        let target = DrainTarget()
        let mailbox = Mailbox<Action>(scheduleDrain: { target.wake() })
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
            clock: clock, mailbox: mailbox, strictChannels: strictChannels, classifier: channelClassifier, report: report
        )
        let weakSelf = WeakRuntime(self)
        target.set { weakSelf.runtime?.schedule { $0.drain() } }
    }

    /// Runs `body` on the store's executor, isolated to this runtime.
    nonisolated func schedule(_ body: @escaping @Sendable (isolated StoreRuntime) -> Void) {
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
                    if let liveness {
                        // A torn-down channel or replaced run is silent.
                        guard liveness.isAlive else { continue }
                        if let inbox = testInbox {
                            inbox.hold(dispatched)
                            continue
                        }
                    }
                    if depth > runawayThreshold {
                        processing(depth: -1)   // what the diagnostic handler sends starts afresh
                        report(StoreDiagnostic(
                            kind: .runawayActionLoop,
                            message: "action \(dispatched.action) from \(dispatched.source) is \(depth) synchronous hops deep (threshold \(runawayThreshold)); it was dropped"
                        ))
                        continue
                    }
                    batchDepth = max(batchDepth, depth)
                    processing(depth: depth)
                    if process(dispatched, in: &context, reducer: reducer, producer: producer) { mutated = true }
                case .completed(let key, let generation):
                    processing(depth: -1)
                    engine.completed(key: key, generation: generation)
                case .timersDue:
                    processing(depth: -1)
                    engine.fireDueTimers()
                case .reconcile:
                    reconcileRequested = true
                }
            }
            storedState = context.state
            processing(depth: batchDepth)
            finishBatch(mutated: mutated, reconcile: mutated || reconcileRequested)
            processing(depth: -1)
        }
        mailbox.endDrain()
        resumeIdleWaitersIfIdle()
    }

    /// Runs one action through reduce and produce; returns whether state may have changed.
    private func process(
        _ dispatched: DispatchedAction<Action>,
        in context: inout ProduceContext<State, Environment>,
        reducer: Behavior<Action, State, Environment>.Reduce?,
        producer: Behavior<Action, State, Environment>.Produce?
    ) -> Bool {
        // Called through optional chaining: an `if let` binding retained and released each
        // closure's context per action.
        reducer?(dispatched.action, &context.state)
        // Handed straight to the engine (which skips an empty effect): checking `isEmpty` here
        // first kept the effect alive across two uses and copied it.
        if let effect = producer?(dispatched.action, context) { engine.schedule(effect) }
        return reducer != nil
    }

    /// After a batch: evaluate supervise and reconcile once, then publish the state.
    private func finishBatch(mutated: Bool, reconcile: Bool) {
        if reconcile, let supervisor {
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
        if mutated { published.publish(state) }
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

    /// Whether nothing is queued, no drain is scheduled, and no engine timer is due.
    var isIdle: Bool { !mailbox.isBusy && !engine.hasDueTimers }

    /// Suspends until the store is idle (see `isIdle`).
    func waitUntilIdle() async {
        if isIdle { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    private func resumeIdleWaitersIfIdle() {
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
        storedState = context.state
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
final class DrainTarget: Sendable {
    private final class Wake: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let action = Mutex<Wake?>(nil)

    func set(_ wake: @escaping @Sendable () -> Void) {
        let boxed = Wake(wake)
        action.withLock { $0 = boxed }
    }

    func wake() { action.withLock { $0 }?.run() }
}

/// A weak reference to a runtime: queued wake-ups must not keep a released store alive.
final class WeakRuntime<Action: Sendable, State: Sendable, Environment: Sendable>: Sendable {
    weak let runtime: StoreRuntime<Action, State, Environment>?

    init(_ runtime: StoreRuntime<Action, State, Environment>) {
        self.runtime = runtime
    }
}
