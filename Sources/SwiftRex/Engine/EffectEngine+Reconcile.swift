extension EffectEngine {
    /// Brings what runs in line with `desired`, the channels the current state keeps.
    ///
    /// - New id: open it (or start its settle window). If a channel opened imperatively is already
    ///   live under the id, the supervise adopts it and delivers its `.onChange` value instead.
    /// - Reset key changed: cancel the instance, then open a new one (settling if asked).
    /// - `.onChange` value changed: deliver it into the live instance, paced by its delivery; while
    ///   settling, the pending open just takes the new declaration.
    /// - Id gone: cancel it — after every open of this cycle, so switching ids opens before closing;
    ///   ids are cancelled in the order they held in the previous list.
    /// Duplicate ids in one list open once; the last declaration wins.
    ///
    /// `change` says which positions may differ from the last cycle's list (what the supervise's
    /// memos did not vouch for): `unchanged` skips the cycle, `ranges` examines only those
    /// positions, `resized` the whole list. Positions outside it are trusted to hold the same
    /// declaration as before.
    ///
    /// Returns whether anything was opened, recreated, piped or cancelled.
    @discardableResult
    func reconcile(_ desired: [Channel<Action>], change: SupervisorChange = .resized) -> Bool {
        counters.cycles += 1
        cycleChanged = false
        switch change {
        case .unchanged:
            counters.skippedCycles += 1
            return false
        case .ranges(let ranges):
            if reconcileInPlace(desired, ranges: ranges) {
                if cycleChanged { counters.changedCycles += 1 }
                return cycleChanged
            }
        case .resized:
            if reconcileInPlace(desired, ranges: [0..<desired.count]) {
                if cycleChanged { counters.changedCycles += 1 }
                return cycleChanged
            }
        }
        counters.examinedPositions += desired.count
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

        // Pass 3: cancel ids that left the set, in their order in the previous list (every
        // record that is not of this cycle was in it).
        for previous in memory.lastSignature {
            guard let slot = memory.index[previous.id], memory.records[slot].seenCycle != cycle else { continue }
            cancel(previous.id, reason: "left the desired set")
            removeRecord(previous.id)
        }

        memory.remember(desired)
        if cycleChanged { counters.changedCycles += 1 }
        return cycleChanged
    }

    /// The common case: most ids sit at the same positions as last cycle. Unchanged positions
    /// cost two comparisons and no hashing; only positions whose reset key or value changed, and
    /// positions whose id changed (a few ids replaced by others), touch the index. An unchanged
    /// cycle is two linear scans with no allocation.
    ///
    /// Only positions inside `ranges` are examined: the others hold what they held last cycle.
    ///
    /// Returns false, having changed nothing, when the list moved too much or holds duplicates:
    /// then the full diff runs.
    private func reconcileInPlace(_ desired: [Channel<Action>], ranges: [Range<Int>]) -> Bool {
        let count = desired.count
        // Same length, and last cycle had no duplicate ids (one record per position).
        guard count == memory.lastSignature.count, memory.records.count == count, count > 0 else { return false }
        var moved: [Int] = []
        let limit = max(count / 4, 1)
        let fits = desired.withUnsafeBufferPointer { channels in
            memory.lastSignature.withUnsafeBufferPointer { signatures in
                for range in ranges {
                    for position in range where channels[position].storage.id != signatures[position].id {
                        moved.append(position)
                        if moved.count > limit { return false }
                    }
                }
                return true
            }
        }
        guard fits else { return false }

        // Ids that changed position: which old ones remain (elsewhere) and which new ones arrive.
        var leaving: Set<AnyHashableSendable> = []
        var arriving: Set<AnyHashableSendable> = []
        if !moved.isEmpty {
            for position in moved { leaving.insert(memory.lastSignature[position].id) }
            for position in moved {
                let id = desired[position].storage.id
                guard arriving.insert(id).inserted else { return false }                       // duplicate
                if memory.index[id] != nil, !leaving.contains(id) { return false }              // duplicate
            }
            leaving.subtract(arriving)
        }

        // The ids that leave, in their previous order (read before the signatures change).
        let departing = moved.map { memory.lastSignature[$0].id }.filter { leaving.contains($0) }
        for range in ranges {
            counters.examinedPositions += range.count
            for position in range {
                let storage = desired[position].storage
                let resetKey = storage.lifetime.resetKey
                let broadcast = storage.payload.broadcastIdentity
                let previous = memory.lastSignature[position]
                if previous.id == storage.id, resetKey == previous.resetKey, broadcast == previous.broadcast { continue }
                if let slot = memory.index[storage.id] {
                    let record = memory.records[slot]
                    if record.resetKey != resetKey {
                        recreate(desired[position], from: record.resetKey, stats: record.stats)
                    } else if record.broadcast != broadcast {
                        pipe(desired[position])
                    }
                    memory.records[slot].resetKey = resetKey
                    memory.records[slot].broadcast = broadcast
                } else {
                    let stats = ChannelStats()
                    memory.index[storage.id] = memory.records.count
                    memory.records.append(ReconcileMemory.Record(
                        id: storage.id, resetKey: resetKey, broadcast: broadcast, seenCycle: memory.cycle,
                        desiredIndex: position, isNew: false, stats: stats
                    ))
                    appear(desired[position], stats: stats)
                }
                memory.lastSignature[position] = ReconcileMemory.Signature(id: storage.id, resetKey: resetKey, broadcast: broadcast)
            }
        }
        // Ids that left: cancelled after every open of this cycle.
        for id in departing {
            cancel(id, reason: "left the desired set")
            removeRecord(id)
        }
        return true
    }

    /// Drops the memory of one id (swap-remove keeps the records dense).
    private func removeRecord(_ id: AnyHashableSendable) {
        guard let slot = memory.index.removeValue(forKey: id) else { return }
        let last = memory.records.removeLast()
        if slot < memory.records.count {
            memory.records[slot] = last
            memory.index[last.id] = slot
        }
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
