/// Runs effects and channels for one store: the registry keyed by id, timers, and reconcile.
///
/// Lives on the store's executor: every method is called from there, so nothing here locks.
/// Runs carry generations; a late completion, timer or send of an old run never touches a newer
/// run registered under the same id.
@usableFromInline
final class EffectEngine<Action: Sendable> {
    let clock: EngineClock
    let mailbox: Mailbox<Action>
    let report: @Sendable (StoreDiagnostic) -> Void
    /// Open, cancel and reopen every new channel instance (checks that bodies tear down cleanly).
    let strictChannels: Bool
    /// Counts lifecycles by class (`counters.byClass`) when set.
    let classifier: ChannelClassifier?

    // Unchecked exclusivity (`registry`, `reconciler`, `cycleNow`, `registryWarmth`, the
    // generation and order counters): touched on the store's executor only, and no access is
    // open while anything that could reach the engine runs — a lookup or write of the registry
    // is a whole read or write, the reconciler diffs without calling out, and channel bodies run
    // after the write that registers them (a body reaches the store only through its mailbox).
    @exclusivity(unchecked) var registry = EngineRegistry<Action>()
    var throttleStamps: [AnyHashableSendable: Duration] = [:]
    var timers = TimerQueue()
    var driver: (deadline: Duration, task: Task<Void, Never>)?
    // Unchecked exclusivity: touched only on the store's executor, and every access is a leaf
    // (an increment or a whole read; none calls out while it is open), so accesses never
    // overlap — the checked debug build runs every test with the checks on. Each broadcast
    // counts a delivery here, and the dynamic check cost more than the increment.
    @usableFromInline @exclusivity(unchecked) var counters = ReconcileCounters()
    @exclusivity(unchecked) var reconciler = ChannelReconciler()
    /// The clock's reading for the reconcile cycle being carried out (nil outside one): every
    /// open, cancel and recreate of a cycle is stamped with it, so a cycle that replaces 1,000
    /// channels reads the clock once rather than 2,000 times.
    @exclusivity(unchecked) var cycleNow: Duration?
    /// What the cache-warming loads of `reconcile` read (kept so they are not dead code).
    @exclusivity(unchecked) var registryWarmth: UInt64 = 0
    @exclusivity(unchecked) private var lastGeneration: UInt64 = 0
    @exclusivity(unchecked) private var lastOrder: UInt64 = 0
    /// The channel the last broadcast reached, and its id: a stream of broadcasts to one id then
    /// skips the registry's hash lookup. Valid while that instance is alive — an instance leaves
    /// the registry only through `cancel`, which ends its liveness. Two fields, not a tuple:
    /// reading a tuple out of an optional copies (and retains) both halves per broadcast.
    var lastBroadcastLive: LiveChannel? {
        didSet { lastBroadcastReference = lastBroadcastLive.map { Unmanaged.passUnretained($0) } }
    }
    /// `lastBroadcastLive` again, for use without a retain and release per broadcast (it owns
    /// the instance, so this reference stays valid while it is set).
    // Unchecked exclusivity (both): read once per broadcast on the store's executor, written
    // only on a cache miss or a cancel, each a whole read or write that calls nothing.
    @usableFromInline @exclusivity(unchecked) private(set) var lastBroadcastReference: Unmanaged<LiveChannel>?
    @usableFromInline @exclusivity(unchecked) var lastBroadcastKey: AnyHashableSendable?

    init(
        clock: EngineClock, mailbox: Mailbox<Action>, strictChannels: Bool, classifier: ChannelClassifier? = nil,
        report: @escaping @Sendable (StoreDiagnostic) -> Void
    ) {
        self.clock = clock
        self.mailbox = mailbox
        self.strictChannels = strictChannels
        self.classifier = classifier
        self.report = report
        if let classifier { counters.byClass = classifier.classes.map(ChannelClassCounters.init(name:)) }
    }

    /// Now on the store's clock: the cycle's reading inside a reconcile, else a fresh one.
    @inline(__always)
    func now() -> Duration { cycleNow ?? clock.now() }

    func nextGeneration() -> UInt64 {
        lastGeneration &+= 1
        return lastGeneration
    }

    func nextOrder() -> UInt64 {
        lastOrder &+= 1
        return lastOrder
    }

    // MARK: - Action-driven effects

    /// Schedules every component of an effect produced for an action.
    func schedule(_ effect: consuming Effect<Action>) {
        // Consumed and switched with `consume`: the components move out of the effect. A switch
        // over a borrowed effect copied its storage first (a retain of every value it holds).
        let storage = (consume effect).components.storage
        switch consume storage {
        case .none:
            return
        case .one(let component):
            schedule(component)
        case .many(let components):
            for component in components { schedule(component) }
        }
    }

    func schedule(_ component: borrowing EffectComponent<Action>) {
        // Fields are read where they are used: a broadcast (one per message on a busy channel)
        // then never copies the scheduling or the value.
        if component.scheduling.cancelsOnly {
            if let id = component.scheduling.id { cancel(id, reason: .cancelledByID) }
            return
        }
        switch component.kind {
        case .run(let subscribe):
            scheduleRun(subscribe, component.scheduling)
        case .open(let channel):
            scheduleOpen(channel, key: component.scheduling.id ?? channel.id)
        case .broadcast(let value):
            guard let key = component.scheduling.id else { return }
            broadcast(value, into: key)
        }
    }

    private func scheduleRun(
        _ subscribe:
            @escaping @Sendable (_ send: @escaping Effect<Action>.Send, _ complete: @escaping Effect<Action>.Complete) -> SubscriptionToken,
        _ scheduling: EffectScheduling
    ) {
        let key = scheduling.id ?? AnyHashableSendable(AnonymousChannelID())
        if scheduling.id != nil {
            switch registry[key] {
            case .channel, .settling:
                report(
                    StoreDiagnostic(
                        kind: .idCollision,
                        message:
                            "a one-shot effect was scheduled under id \(key), where a channel is live; the effect was dropped and the channel kept"
                    ))
                return
            case .effect, .pending, nil:
                break
            }
            if case .throttle(let interval) = scheduling.coalesce {
                let now = clock.now()
                if let stamp = throttleStamps[key], now - stamp < interval.clampedToZero { return }
                throttleStamps[key] = now
            }
            // One run per id: a new keyed run replaces whatever ran or waited under it.
            cancel(key, reason: .replaced, keepingThrottleStamp: true)
        }
        var wait = Duration.zero
        if case .debounce(let quiet) = scheduling.coalesce { wait += quiet.clampedToZero }
        if let delay = scheduling.delay { wait += delay.clampedToZero }
        if wait == .zero {
            startRun(subscribe, key: key)
        } else {
            let generation = nextGeneration()
            registry[key] = .pending(PendingEffect(generation: generation, subscribe: subscribe))
            timers.schedule(at: clock.now() + wait, .startPending(key: key, generation: generation))
            armDriver()
        }
    }

    func startRun(
        _ subscribe: @Sendable (_ send: @escaping Effect<Action>.Send, _ complete: @escaping Effect<Action>.Complete) -> SubscriptionToken,
        key: AnyHashableSendable
    ) {
        let run = RunningEffect(generation: nextGeneration())
        registry[key] = .effect(run)
        let mailbox = self.mailbox
        let liveness = run.liveness
        let generation = run.generation
        let token = subscribe(
            { action in mailbox.enqueueAction(action, liveness: liveness) },
            { mailbox.enqueue(.completed(key: key, generation: generation)) }
        )
        if case .effect(let current) = registry[key], current === run {
            run.token = token
        } else {
            token.cancel()
        }
    }

    /// A run or pipeable channel called `complete`.
    func completed(key: AnyHashableSendable, generation: UInt64) {
        switch registry[key] {
        case .effect(let run) where run.generation == generation:
            registry.removeValue(forKey: key)
            run.liveness.end()
            run.token?.disarm()
        case .channel(let live) where live.generation == generation:
            cancel(key, reason: .completed)
        default:
            break
        }
    }

    // MARK: - Cancellation

    /// Cancels whatever runs or waits under `key`. A channel's cancel runs exactly once, after it
    /// left the registry, so nothing it triggers can reach it again.
    @discardableResult
    func cancel(_ key: AnyHashableSendable, reason: ChannelEventReason, keepingThrottleStamp: Bool = false) -> Bool {
        // Most stores throttle nothing: an empty dictionary's removal still hashes the key.
        if !keepingThrottleStamp, !throttleStamps.isEmpty { throttleStamps.removeValue(forKey: key) }
        guard let slot = registry.removeValue(forKey: key) else { return false }
        tearDown(slot, reason: reason)
        return true
    }

    /// Ends what ran in `slot` (taken out of the registry, or about to be overwritten there by
    /// the instance that replaces it): liveness ended, counted, logged, its cancel run once.
    func tearDown(_ slot: EngineSlot<Action>, reason: ChannelEventReason) {
        switch slot {
        case .effect(let run):
            run.liveness.end()
            run.token?.cancel()
        case .pending:
            break
        case .channel(let live):
            live.liveness.end()
            if lastBroadcastLive === live {  // do not keep it alive
                lastBroadcastLive = nil
                lastBroadcastKey = nil
            }
            counters.cancels += 1
            if live.classIndex != ChannelClassifier.unclassified { counters.byClass[Int(live.classIndex)].cancels += 1 }
            live.stats.recordCancelled(reason, at: now())
            live.handler?.cancel()
        case .settling(let settling):
            settling.stats.recordCancelled(reason, at: now())
        }
    }

    /// Tears everything down: every run cancelled, every channel's cancel run once.
    func cancelAll(reason: ChannelEventReason) {
        driver?.task.cancel()
        driver = nil
        timers.removeAll()
        while let key = registry.keys.first {
            cancel(key, reason: reason)
        }
        throttleStamps.removeAll()
    }

    // MARK: - Timers

    /// Makes sure one driver task sleeps until the earliest timer.
    func armDriver() {
        guard let earliest = timers.earliest else { return }
        if let driver, driver.deadline <= earliest { return }
        driver?.task.cancel()
        let sleepUntil = clock.sleepUntil
        let mailbox = self.mailbox
        driver = (
            earliest,
            Task {
                do { try await sleepUntil(earliest) } catch { return }
                mailbox.enqueue(.timersDue)
            }
        )
    }

    /// Fires every timer that is due, in deadline order.
    func fireDueTimers() {
        let now = clock.now()
        if let driver, driver.deadline <= now { self.driver = nil }
        while let entry = timers.popDue(now: now) {
            fire(entry.event)
        }
        armDriver()
    }

    /// Whether a timer is due but has not fired yet.
    var hasDueTimers: Bool {
        guard let earliest = timers.earliest else { return false }
        return earliest <= clock.now()
    }

    private func fire(_ event: TimerEvent) {
        switch event {
        case .startPending(let key, let generation):
            guard case .pending(let pending) = registry[key], pending.generation == generation else { return }
            registry.removeValue(forKey: key)
            startRun(pending.subscribe, key: key)
        case .openSettled(let key, let generation):
            guard case .settling(let settling) = registry[key], settling.generation == generation else { return }
            registry.removeValue(forKey: key)
            openNow(settling.channel, key: key, supervised: settling.supervised, stats: settling.stats)
        case .deliverDebounced(let key, let generation, let sequence):
            guard case .channel(let live) = registry[key], live.generation == generation,
                let decision = live.pacing?.pacer.quietPeriodEnded(sequence: sequence)
            else { return }
            carryOut(decision, for: live, key: key, debounced: true)
        case .deliverThrottleTrailing(let key, let generation):
            guard case .channel(let live) = registry[key], live.generation == generation,
                let decision = live.pacing?.pacer.throttleWindowEnded(at: clock.now())
            else { return }
            carryOut(decision, for: live, key: key, debounced: false)
        }
    }

    // MARK: - Introspection

    /// Runs on the store's executor, so a node's `keep` request costs its reactor this: the
    /// entries are built in registry order and only their (order, index) pairs are sorted, not
    /// the entries themselves (moving 100,000 entries through a sort cost more than building them).
    func snapshot() -> KeepSnapshot {
        var entries: [KeepEntry] = []
        var orders: [(order: UInt64, index: Int)] = []
        entries.reserveCapacity(registry.count)
        orders.reserveCapacity(registry.count)
        var inFlight = 0
        for (key, slot) in zip(registry.keys, registry.slots) {
            switch slot {
            case .effect, .pending:
                inFlight += 1
            case .channel(let live):
                orders.append((live.order, entries.count))
                entries.append(
                    KeepEntry(
                        id: key, lifetime: live.lifetime, broadcasting: live.broadcasting, delivery: live.delivery,
                        status: .live, supervised: live.supervised, since: live.since,
                        opens: live.stats.opens, recreates: live.stats.recreates, deliveries: live.stats.deliveries,
                        drops: live.stats.drops, history: live.stats.history
                    ))
            case .settling(let settling):
                let channel = settling.channel
                orders.append((settling.order, entries.count))
                entries.append(
                    KeepEntry(
                        id: key, lifetime: channel.lifetime, broadcasting: channel.payload.name, delivery: channel.delivery,
                        status: .settling, supervised: settling.supervised, since: settling.since,
                        opens: settling.stats.opens, recreates: settling.stats.recreates,
                        deliveries: settling.stats.deliveries, drops: settling.stats.drops, history: settling.stats.history
                    ))
            }
        }
        orders.sort { $0.order < $1.order }
        return KeepSnapshot(
            channels: orders.map { entries[$0.index] }, counters: counters, inFlightEffects: inFlight, pendingTimers: timers.count
        )
    }

    /// One-shot runs and pending runs (not channels).
    var inFlightEffectCount: Int {
        registry.slots.reduce(0) { count, slot in
            switch slot {
            case .effect, .pending: count + 1
            case .channel, .settling: count
            }
        }
    }
}
