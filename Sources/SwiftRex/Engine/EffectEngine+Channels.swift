extension EffectEngine {
    /// `Effect.open` / `Effect.channel`: open under `key`, or deliver into the live instance.
    func scheduleOpen(_ channel: Channel<Action>, key: AnyHashableSendable) {
        switch registry[key] {
        case .channel(let live):
            if let value = channel.payload.deliverable { deliver(value, into: live, key: key) }
        case .settling(let settling):
            settling.channel = channel
        case .effect, .pending:
            report(
                StoreDiagnostic(
                    kind: .idCollision,
                    message: "a channel was opened under id \(key), where a one-shot effect runs; the open was dropped"
                ))
        case nil:
            openOrSettle(channel, key: key, supervised: false, stats: ChannelStats())
        }
    }

    /// `Effect.broadcast`: deliver into the live channel under `key`; dropped if none is live.
    ///
    /// Inlinable: a stream of broadcasts into the channel the last one reached (a node's publish,
    /// one per message) is delivered by code specialised in the store's module, with no generic
    /// engine call per value; a cache miss, a paced channel and a drop go out of line.
    @inlinable
    func broadcast(_ value: any Sendable, into key: AnyHashableSendable) {
        if let cached = lastBroadcastReference, lastBroadcastKey == key,
            cached._withUnsafeGuaranteedRef({ $0.liveness.isAlive && $0.pacing == nil })
        {
            cached._withUnsafeGuaranteedRef { receive(value, into: $0) }
        } else {
            broadcastUncached(value, into: key)
        }
    }

    /// `broadcast` past the last-broadcast cache: a registry lookup, pacing, or a drop.
    @usableFromInline
    func broadcastUncached(_ value: any Sendable, into key: AnyHashableSendable) {
        if let cached = lastBroadcastReference, lastBroadcastKey == key,
            cached._withUnsafeGuaranteedRef({ $0.liveness.isAlive })
        {
            cached._withUnsafeGuaranteedRef { deliver(value, into: $0, key: key) }
        } else if case .channel(let live) = registry[key] {
            lastBroadcastLive = live
            lastBroadcastKey = key
            deliver(value, into: live, key: key)
        } else {
            counters.drops += 1
            if case .settling(let settling) = registry[key] {
                settling.stats.drops += 1
                settling.stats.recordDropped(.broadcastWhileSettling, at: now())
            }
        }
    }

    /// Opens now, or starts the settle window when the lifetime asks for one.
    func openOrSettle(_ channel: Channel<Action>, key: AnyHashableSendable, supervised: Bool, stats: ChannelStats) {
        if let settle = channel.lifetime.settle, settle > .zero {
            let generation = nextGeneration()
            // A fresh reading, not the cycle's: the window starts now, however long the cycle's
            // earlier bodies took (settling channels are rare; the cycle's reading is for stamps).
            let now = clock.now()
            registry[key] = .settling(
                SettlingChannel(
                    generation: generation, channel: channel, stats: stats, order: nextOrder(), since: now, supervised: supervised
                ))
            stats.recordSettling(at: now)
            timers.schedule(at: now + settle, .openSettled(key: key, generation: generation))
            armDriver()
        } else {
            openNow(channel, key: key, supervised: supervised, stats: stats)
        }
    }

    /// Runs the channel's body and registers the instance; delivers its value on open.
    func openNow(_ channel: Channel<Action>, key: AnyHashableSendable, supervised: Bool, stats: ChannelStats) {
        let live = openInstance(channel, key: key, supervised: supervised, stats: stats)
        if strictChannels {
            // Strict mode: every new instance is torn down and opened again at once, which flushes
            // out bodies whose cancel does not undo what they opened.
            cancel(key, reason: .strictMode)
            _ = openInstance(channel, key: key, supervised: supervised, stats: stats, order: live.order)
        }
    }

    @discardableResult
    private func openInstance(
        _ channel: Channel<Action>, key: AnyHashableSendable, supervised: Bool, stats: ChannelStats, order: UInt64? = nil
    ) -> LiveChannel {
        let now = now()
        let live = LiveChannel(
            generation: nextGeneration(), lifetime: channel.lifetime, delivery: channel.delivery,
            payloadKind: channel.payload.kind, stats: stats, order: order ?? nextOrder(), since: now, supervised: supervised
        )
        registry[key] = .channel(live)
        let mailbox = self.mailbox
        let liveness = live.liveness
        let generation = live.generation
        let source = channel.storage.source
        live.handler = channel.storage.open(
            { action in mailbox.enqueueAction(DispatchedAction(action, source: source), liveness: liveness) },
            complete: { { mailbox.enqueue(.completed(key: key, generation: generation)) } }
        )
        counters.opens += 1
        if let classifier {
            live.classIndex = classifier.index(of: key)
            if live.classIndex != ChannelClassifier.unclassified { counters.byClass[Int(live.classIndex)].opens += 1 }
        }
        stats.opens += 1
        stats.recordOpened(at: now)
        if let value = channel.payload.deliverable {
            // The value on open is not paced, but it starts a throttle window: from now, read
            // afresh (the cycle's reading may be older by the bodies run before this one).
            if let pacing = live.pacing { pacing.pacer.openedWithValue(at: clock.now()) }
            receive(value, into: live)
        }
        return live
    }

    /// Delivers a value into a live instance, paced by the instance's delivery policy.
    @inline(__always)
    func deliver(_ value: any Sendable, into live: LiveChannel, key: AnyHashableSendable) {
        if live.pacing == nil {
            receive(value, into: live)
        } else {
            deliverPaced(value, into: live, key: key)
        }
    }

    /// `deliver` for throttled and debounced channels (kept out of the immediate path): the
    /// instance's pacer decides, the engine carries it out.
    private func deliverPaced(_ value: any Sendable, into live: LiveChannel, key: AnyHashableSendable) {
        // A fresh reading: the value arrives now, not when the cycle began (see `openOrSettle`).
        guard let decision = live.pacing?.pacer.arrived(value, at: clock.now()) else {
            receive(value, into: live)
            return
        }
        carryOut(decision, for: live, key: key, debounced: live.delivery.isDebounce)
    }

    /// Does what a pacer decided: counts a drop, arms its timer, delivers.
    func carryOut(_ decision: DeliveryPacer.Decision, for live: LiveChannel, key: AnyHashableSendable, debounced: Bool) {
        if let reason = decision.dropped { drop(live, reason: reason) }
        if let deadline = decision.armTimer {
            timers.schedule(
                at: deadline,
                debounced
                    ? .deliverDebounced(key: key, generation: live.generation, sequence: decision.sequence)
                    : .deliverThrottleTrailing(key: key, generation: live.generation)
            )
            armDriver()
        }
        if let value = decision.deliver { receive(value, into: live) }
    }

    /// Hands a value to the instance's handler and counts it (a type mismatch is a counted drop).
    @inlinable
    func receive(_ value: any Sendable, into live: LiveChannel) {
        guard let handler = live.handler else { return }
        if handler.receive(value) {
            counters.deliveries += 1
            live.stats.deliveries += 1
        } else {
            dropMismatched(live)
        }
    }

    /// A value of another type than the channel's (out of line: never on the hot path).
    @usableFromInline
    func dropMismatched(_ live: LiveChannel) {
        drop(live, reason: .typeMismatch)
    }

    private func drop(_ live: LiveChannel, reason: ChannelEventReason) {
        counters.drops += 1
        live.stats.drops += 1
        live.stats.recordDropped(reason, at: now())
    }
}
