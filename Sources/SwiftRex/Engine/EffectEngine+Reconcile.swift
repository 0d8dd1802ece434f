extension EffectEngine {
    /// Brings what runs in line with `desired`, the channels the current state keeps.
    ///
    /// - New id: open it (or start its settle window). If a channel opened imperatively is already
    ///   live under the id, the supervise adopts it and delivers its `.onChange` value instead.
    /// - Reset key changed: cancel the instance, then open a new one (settling if asked).
    /// - `.onChange` value changed: deliver it into the live instance, paced by its delivery; while
    ///   settling, the pending open just takes the new declaration.
    /// - Id gone: cancel it — after every open of this cycle, so switching ids opens before closing.
    /// Duplicate ids in one list open once; the last declaration wins.
    ///
    /// Returns whether anything was opened, recreated, piped or cancelled.
    @discardableResult
    func reconcile(_ desired: [Channel<Action>]) -> Bool {
        counters.cycles += 1
        if memory.matchesLastCycle(desired) { return false }
        cycleChanged = false
        memory.cycle &+= 1
        let cycle = memory.cycle
        memory.order.removeAll(keepingCapacity: true)

        // Pass 1: collapse duplicates (last declaration wins, first position orders).
        for (position, channel) in desired.enumerated() {
            if let slot = memory.index[channel.id] {
                if memory.records[slot].seenCycle != cycle {
                    memory.records[slot].seenCycle = cycle
                    memory.order.append(slot)
                }
                memory.records[slot].desiredIndex = position
            } else {
                let slot = memory.records.count
                memory.records.append(ReconcileMemory.Record(
                    id: channel.id, resetKey: nil, broadcast: nil, seenCycle: cycle, desiredIndex: position,
                    isNew: true, stats: ChannelStats()
                ))
                memory.index[channel.id] = slot
                memory.order.append(slot)
            }
        }

        // Pass 2: open, recreate or pipe.
        for slot in memory.order {
            let record = memory.records[slot]
            let channel = desired[record.desiredIndex]
            let resetKey = channel.lifetime.resetKey
            let broadcast = channel.payload.broadcastIdentity
            if record.isNew {
                appear(channel, stats: record.stats)
            } else if record.resetKey != resetKey {
                recreate(channel, from: record.resetKey, stats: record.stats)
            } else if record.broadcast != broadcast {
                pipe(channel)
            }
            memory.records[slot].isNew = false
            memory.records[slot].resetKey = resetKey
            memory.records[slot].broadcast = broadcast
        }

        // Pass 3: cancel ids that left the set (swap-remove keeps the array dense).
        var slot = memory.records.count - 1
        while slot >= 0 {
            if memory.records[slot].seenCycle != cycle {
                let id = memory.records[slot].id
                cancel(id, reason: "left the desired set")
                memory.index.removeValue(forKey: id)
                let last = memory.records.removeLast()
                if slot < memory.records.count {
                    memory.records[slot] = last
                    memory.index[last.id] = slot
                }
            }
            slot -= 1
        }

        memory.remember(desired)
        if cycleChanged { counters.changedCycles += 1 }
        return cycleChanged
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
            report(StoreDiagnostic(
                kind: .idCollision,
                message: "supervised channel \(key) displaced a one-shot effect running under the same id"
            ))
            cancel(key, reason: "displaced by a supervised channel")
            openOrSettle(channel, key: key, supervised: true, stats: stats)
        case nil:
            openOrSettle(channel, key: key, supervised: true, stats: stats)
        }
    }

    private func recreate(_ channel: Channel<Action>, from oldKey: AnyHashableSendable?, stats: ChannelStats) {
        let key = channel.id
        cancel(key, reason: "reset key changed")
        counters.recreates += 1
        stats.recreates += 1
        stats.record(.recreated(from: oldKey, to: channel.lifetime.resetKey), at: clock.now())
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
