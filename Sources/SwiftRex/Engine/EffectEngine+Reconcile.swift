extension EffectEngine {
    /// Brings what runs in line with `desired`, the channels the current state keeps: the
    /// reconciler diffs (see `ChannelReconciler`), and this carries its directives out.
    ///
    /// - New id: open it (or start its settle window). If a channel opened imperatively is already
    ///   live under the id, the supervise adopts it and delivers its `.onChange` value instead.
    /// - Reset key changed: cancel the instance, then open a new one (settling if asked).
    /// - `.onChange` value changed: deliver it into the live instance, paced by its delivery; while
    ///   settling, the pending open just takes the new declaration.
    /// - Id gone: cancel it — after every open of this cycle, so switching ids opens before closing.
    ///
    /// `change` says which positions may differ from the last cycle's list: `unchanged` skips
    /// the cycle without diffing anything.
    ///
    /// Returns whether the cycle had anything to do (directives).
    @discardableResult
    func reconcile(_ desired: [Channel<Action>], change: SupervisorChange = .resized) -> Bool {
        counters.cycles += 1
        if case .unchanged = change {
            counters.skippedCycles += 1
            return false
        }
        counters.examinedPositions += reconciler.reconcile(desired, change: change)
        let directives = reconciler.directives
        // A store's first cycle opens everything at once: size the registry for it exactly.
        if registry.count == 0, directives.count > 1_024 { registry.reserveCapacity(directives.count) }
        if !directives.isEmpty { cycleNow = clock.now() }
        defer { cycleNow = nil }
        // Through the buffer: this runs unspecialised, where an array subscript is a call.
        desired.withUnsafeBufferPointer { desired in
            // A churn cycle's ids are scattered over a registry as large as the store's channels:
            // their buckets are warmed first, in a loop that only loads (see `SlotIndex.warm`).
            if directives.count > 1 {
                var warmth = registryWarmth
                for directive in directives {
                    switch directive {
                    case .open(let position, _), .recreate(let position, _, _): warmth ^= registry.warm(desired[position].storage.id)
                    case .cancel(let id, _): warmth ^= registry.warm(id)
                    case .deliver: break
                    }
                }
                registryWarmth = warmth
            }
            for directive in directives {
                switch directive {
                case .open(let position, let stats):
                    appear(desired[position], stats: stats)
                case .recreate(let position, let from, let stats):
                    recreate(desired[position], from: from, stats: stats)
                case .deliver(let position):
                    pipe(desired[position])
                case .cancel(let id, let reason):
                    cancel(id, reason: reason)
                }
            }
        }
        reconciler.cycleDone()
        guard !directives.isEmpty else { return false }
        counters.changedCycles += 1
        return true
    }

    private func appear(_ channel: Channel<Action>, stats: ChannelStats) {
        let key = channel.id
        switch registry[key] {
        case .channel(let live):
            // Opened imperatively: the supervise adopts the instance instead of reopening it.
            live.supervised = true
            if let value = channel.payload.broadcastIdentity?.base { deliver(value, into: live, key: key) }
        case .settling(let settling):
            settling.supervised = true
            settling.channel = channel
        case .effect, .pending:
            report(
                StoreDiagnostic(
                    kind: .idCollision,
                    message: "supervised channel \(key) displaced a one-shot effect running under the same id"
                ))
            cancel(key, reason: .displaced)
            openOrSettle(channel, key: key, supervised: true, stats: stats)
        case nil:
            openOrSettle(channel, key: key, supervised: true, stats: stats)
        }
    }

    private func recreate(_ channel: Channel<Action>, from oldKey: AnyHashableSendable?, stats: ChannelStats) {
        let key = channel.id
        // The old instance is torn down where it is registered and the open below overwrites
        // its slot: a cancel and an open under the same id cost the registry two lookups of one
        // bucket, not a removal (which moves the last entry and re-indexes it) and an insertion.
        // Nothing runs
        // in between that can reach the registry (a cancel reaches the store through its mailbox).
        if !throttleStamps.isEmpty { throttleStamps.removeValue(forKey: key) }
        if let slot = registry[key] { tearDown(slot, reason: .resetKeyChanged) }
        counters.recreates += 1
        if let classifier {
            let index = classifier.index(of: key)
            if index != ChannelClassifier.unclassified { counters.byClass[Int(index)].recreates += 1 }
        }
        stats.recreates += 1
        stats.recordRecreated(from: oldKey, to: channel.lifetime.resetKey, at: now())
        openOrSettle(channel, key: key, supervised: true, stats: stats)
    }

    private func pipe(_ channel: Channel<Action>) {
        let key = channel.id
        switch registry[key] {
        case .channel(let live):
            if let value = channel.payload.broadcastIdentity?.base { deliver(value, into: live, key: key) }
        case .settling(let settling):
            settling.channel = channel
        case .effect, .pending, nil:
            // Cancelled by id: it stays closed until it leaves the set or its reset key changes.
            counters.drops += 1
        }
    }
}
