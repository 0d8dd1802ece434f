/// What the engine must do to one channel for the running set to match the desired one.
enum ReconcileDirective {
    /// A new id at `position` of the desired list: open it (or adopt an instance opened
    /// imperatively under the id).
    case open(position: Int, stats: ChannelStats)
    /// The reset key changed (it was `from`): cancel the instance, open the declaration at
    /// `position`.
    case recreate(position: Int, from: AnyHashableSendable?, stats: ChannelStats)
    /// The `.onChange` value at `position` changed: deliver it into the live instance.
    case deliver(position: Int)
    /// The id left the desired set: cancel it.
    case cancel(id: AnyHashableSendable, reason: String)
}

/// The reconcile diff, sans I/O: the desired list (and which of its positions may have changed)
/// and what it remembers of the last cycle go in; a buffer of directives comes out, reused from
/// cycle to cycle. It never touches an instance, a handler, a timer or the registry — the
/// engine carries the directives out, in order — so "did this cycle change anything" is "are
/// there directives", and the diff is testable without opening anything.
struct ChannelReconciler {
    static let leftTheSet = "left the desired set"

    private(set) var memory = ReconcileMemory()
    /// This cycle's directives: opens, recreates and deliveries in desired order, then cancels
    /// in the order the ids held in the previous list.
    private(set) var directives: [ReconcileDirective] = []
    private var examined = 0

    /// Diffs `desired` against the last cycle into `directives` (emptied first); returns how many
    /// positions it examined.
    ///
    /// A new id opens; a changed reset key recreates; a changed `.onChange` value delivers; an id
    /// that left is cancelled after every other directive (so switching ids opens before
    /// closing), in the order the ids held in the previous list. Duplicate ids in one list open
    /// once; the last declaration wins.
    ///
    /// `change` says which positions may differ from the last cycle's list (what the supervise's
    /// memos did not vouch for): `unchanged` yields nothing, `ranges` examines only those
    /// positions, `resized` the whole list. Positions outside it are trusted to hold the same
    /// declaration as before.
    mutating func reconcile<Action>(_ desired: [Channel<Action>], change: SupervisorChange) -> Int {
        directives.removeAll(keepingCapacity: true)
        examined = 0
        switch change {
        case .unchanged:
            return 0
        case .ranges(let ranges):
            if reconcileInPlace(desired, ranges: ranges) { return examined }
        case .resized:
            if reconcileInPlace(desired, ranges: [0..<desired.count]) { return examined }
        }
        examined = desired.count
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
                directives.append(.open(position: record.desiredIndex, stats: record.stats))
            } else if record.resetKey != resetKey {
                directives.append(.recreate(position: record.desiredIndex, from: record.resetKey, stats: record.stats))
            } else if record.broadcast != broadcast {
                directives.append(.deliver(position: record.desiredIndex))
            }
            memory.records[slot].isNew = false
            memory.records[slot].resetKey = resetKey
            memory.records[slot].broadcast = broadcast
        }

        // Pass 3: cancel ids that left the set, in their order in the previous list (every
        // record that is not of this cycle was in it).
        for previous in memory.lastSignature {
            guard let slot = memory.index[previous.id], memory.records[slot].seenCycle != cycle else { continue }
            directives.append(.cancel(id: previous.id, reason: Self.leftTheSet))
            removeRecord(previous.id)
        }

        memory.remember(desired)
        return examined
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
    private mutating func reconcileInPlace<Action>(_ desired: [Channel<Action>], ranges: [Range<Int>]) -> Bool {
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
            examined += range.count
            for position in range {
                let storage = desired[position].storage
                let resetKey = storage.lifetime.resetKey
                let broadcast = storage.payload.broadcastIdentity
                let previous = memory.lastSignature[position]
                if previous.id == storage.id, resetKey == previous.resetKey, broadcast == previous.broadcast { continue }
                if let slot = memory.index[storage.id] {
                    let record = memory.records[slot]
                    if record.resetKey != resetKey {
                        directives.append(.recreate(position: position, from: record.resetKey, stats: record.stats))
                    } else if record.broadcast != broadcast {
                        directives.append(.deliver(position: position))
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
                    directives.append(.open(position: position, stats: stats))
                }
                memory.lastSignature[position] = ReconcileMemory.Signature(id: storage.id, resetKey: resetKey, broadcast: broadcast)
            }
        }
        // Ids that left: cancelled after every open of this cycle.
        for id in departing {
            directives.append(.cancel(id: id, reason: Self.leftTheSet))
            removeRecord(id)
        }
        return true
    }

    /// Drops the memory of one id (swap-remove keeps the records dense).
    private mutating func removeRecord(_ id: AnyHashableSendable) {
        guard let slot = memory.index.removeValue(forKey: id) else { return }
        let last = memory.records.removeLast()
        if slot < memory.records.count {
            memory.records[slot] = last
            memory.index[last.id] = slot
        }
    }
}
