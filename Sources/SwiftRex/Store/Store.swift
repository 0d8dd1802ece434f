#if canImport(Glibc)
import Glibc
#endif

/// Owns a feature's state and runs its behavior: reduce, produce, supervise and reconcile.
///
/// A store runs on one serial executor chosen at init (a private dispatch queue by default, the
/// main actor, or a custom executor such as a thread that owns sockets). `dispatch` is callable
/// from any thread and cheap: it appends to a mailbox, and the executor drains it in batches.
/// For each batch the store runs every action's reducers and produces, schedules the effects,
/// then evaluates `supervise` once on the resulting state and lets the engine reconcile the
/// channels. So a state that exists only inside one batch never opens a channel. Actions sent by
/// effects and channel bodies are processed in a later batch, never inside the one that sent them.
///
/// Releasing the store tears everything down on its executor: every channel's cancel runs once,
/// every effect is cancelled, and later sends are dropped.
public final class Store<Action: Sendable, State: Sendable, Environment: Sendable>: Sendable {
    @usableFromInline let runtime: StoreRuntime<Action, State, Environment>

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - initial: The initial state. Channels it implies open right after init, on the executor.
    ///   - behavior: The feature's logic.
    ///   - environment: Dependencies handed to produces and supervisions.
    ///   - clock: The clock every engine timer reads (delays, debounces, settle, delivery pacing).
    ///   - executor: Where state lives and everything runs; a private serial queue by default.
    ///   - options: Runaway threshold, strict channel mode, and where diagnostics go.
    // Inlinable: the store's drain loop is armed here, so it is compiled (specialised) for this
    // store's types in the module that creates it.
    @inlinable
    public init(
        initial: State,
        behavior: Behavior<Action, State, Environment>,
        environment: Environment,
        clock: any Clock<Duration> = ContinuousClock(),
        executor: StoreExecutor = .queue(),
        options: StoreOptions = StoreOptions()
    ) {
        runtime = StoreRuntime(
            initial: initial, behavior: behavior, environment: environment, clock: clock, executor: executor,
            strictChannels: options.strictChannels, channelClassifier: options.channelClassifier,
            runawayThreshold: options.runawayThreshold, interceptor: nil, report: options.onDiagnostic
        )
        runtime.armDrain()
        if behavior.supervises { runtime.mailbox.enqueue(.reconcile) }
    }

    /// A store whose effect- and channel-sent actions go to `interceptor` (the test kit's seam).
    package init(
        initial: State,
        behavior: Behavior<Action, State, Environment>,
        environment: Environment,
        clock: any Clock<Duration>,
        executor: StoreExecutor,
        options: StoreOptions,
        interceptor: any FeedbackInterceptor<Action>
    ) {
        runtime = StoreRuntime(
            initial: initial, behavior: behavior, environment: environment, clock: clock, executor: executor,
            strictChannels: options.strictChannels, channelClassifier: options.channelClassifier,
            runawayThreshold: options.runawayThreshold, interceptor: interceptor, report: options.onDiagnostic
        )
        runtime.armDrain()
        if behavior.supervises { runtime.mailbox.enqueue(.reconcile) }
    }

    deinit {
        runtime.schedule { $0.release() }
    }

    /// Queues `action` for processing on the store's executor. Callable from any thread.
    @inlinable
    public func dispatch(_ action: Action, file: String = #fileID, function: String = #function, line: UInt = #line) {
        runtime.mailbox.enqueueDispatched(DispatchedAction(action, source: ActionSource(file: file, function: function, line: line)))
    }

    /// Queues an action keeping its original provenance.
    @inlinable
    public func dispatch(_ dispatched: DispatchedAction<Action>) {
        runtime.mailbox.enqueueDispatched(dispatched)
    }

    /// The state as of the last processed batch. Callable from any thread.
    @inlinable
    public var state: State { runtime.published.value }

    /// Calls `didChange` on the store's executor with the new state after every batch that ran a
    /// reducer. Cancel (or release) the token to stop.
    public func observe(_ didChange: @escaping @Sendable (State) -> Void) -> SubscriptionToken {
        runtime.published.addObserver(didChange)
    }

    /// The state after every batch that ran a reducer, as an async sequence.
    public var states: AsyncStream<State> {
        AsyncStream { continuation in
            let token = observe { continuation.yield($0) }
            continuation.onTermination = { _ in token.cancel() }
        }
    }

    /// How many inputs wait in the mailbox now, and the most that ever waited at once.
    public var mailboxDepth: (current: Int, max: Int) { runtime.mailbox.depth }

    /// The engine's keep set and counters, read on the store's executor.
    public func keep() async -> KeepSnapshot {
        await runtime.keepSnapshot()
    }

    /// The engine's counters alone (`keep().counters` without the keep set), read on the
    /// store's executor: O(classes), where `keep()` copies every channel. Per class, live
    /// instances are `opens - cancels` of `ReconcileCounters.byClass`.
    public func reconcileCounters() async -> ReconcileCounters {
        await runtime.reconcileCounters
    }

    /// Suspends until nothing is queued and no engine timer is due.
    public func waitUntilIdle() async {
        await runtime.waitUntilIdle()
    }

    /// Tears everything down now (as releasing the store does): every channel's cancel runs once.
    public func release() async {
        await runtime.release()
    }

    /// Runs one action as its own batch, bypassing the mailbox (the test kit's `send`).
    package func processAsBatch(_ dispatched: DispatchedAction<Action>) async -> (before: State, after: State) {
        await runtime.processAsBatch(dispatched)
    }

    /// One-shot effects running or waiting.
    package func inFlightEffects() async -> Int {
        await runtime.inFlightEffects
    }
}

extension Store where Environment == Void {
    /// Creates a store whose behavior needs no environment.
    @inlinable
    public convenience init(
        initial: State,
        behavior: Behavior<Action, State, Void>,
        clock: any Clock<Duration> = ContinuousClock(),
        executor: StoreExecutor = .queue(),
        options: StoreOptions = StoreOptions()
    ) {
        self.init(initial: initial, behavior: behavior, environment: (), clock: clock, executor: executor, options: options)
    }
}

/// Tuning and safety knobs of a store.
public struct StoreOptions: Sendable {
    /// How many synchronous feedback hops (an effect sending while its action is processed,
    /// which sends again, …) an action may be from an outside dispatch before the store calls it a
    /// runaway loop, reports it and drops it.
    public var runawayThreshold: Int
    /// Open, cancel and reopen every new channel instance: flushes out bodies whose cancel does
    /// not undo what they opened.
    public var strictChannels: Bool
    /// Sorts channels into classes whose opens, cancels and recreates the engine counts apart
    /// (`ReconcileCounters.byClass`); nil (the default) counts totals only, at no cost.
    public var channelClassifier: ChannelClassifier?
    /// Receives diagnostics; by default they are written to standard error.
    public var onDiagnostic: @Sendable (StoreDiagnostic) -> Void

    /// Options with the defaults: a threshold of 1,000 hops, strict mode off, diagnostics to
    /// standard error.
    public init(
        runawayThreshold: Int = 1_000,
        strictChannels: Bool = false,
        channelClassifier: ChannelClassifier? = nil,
        onDiagnostic: @escaping @Sendable (StoreDiagnostic) -> Void = StoreOptions.printToStandardError
    ) {
        self.runawayThreshold = runawayThreshold
        self.strictChannels = strictChannels
        self.channelClassifier = channelClassifier
        self.onDiagnostic = onDiagnostic
    }

    /// Writes a diagnostic line to standard error.
    public static let printToStandardError: @Sendable (StoreDiagnostic) -> Void = { diagnostic in
        var stream = StandardError()
        print(diagnostic.description, to: &stream)
    }
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        #if canImport(Glibc)
        _ = string.withCString { Glibc.write(2, $0, strlen($0)) }
        #endif
    }
}
