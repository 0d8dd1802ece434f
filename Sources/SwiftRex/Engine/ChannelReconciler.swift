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
    case cancel(id: AnyHashableSendable, reason: ChannelEventReason)
}

/// The reconcile diff, sans I/O: the desired list (and which of its positions may have changed)
/// and what it remembers of the last cycle go in; a buffer of directives comes out, reused from
/// cycle to cycle. It never touches an instance, a handler, a timer or the registry — the
/// engine carries the directives out, in order — so "did this cycle change anything" is "are
/// there directives", and the diff is testable without opening anything.
struct ChannelReconciler {
    static let leftTheSet = ChannelEventReason.leftTheSet

    private(set) var memory = ReconcileMemory()
    /// This cycle's directives: opens, recreates and deliveries in desired order, then cancels
    /// in the order the ids held in the previous list.
    private(set) var directives: [ReconcileDirective] = []
    private var examined = 0
    /// Scratch of the in-place diff, kept from cycle to cycle so a churn cycle allocates none of
    /// it: the positions whose id changed, the slot each one's new id has (or `noRecord`), the
    /// records they vacated, and the new ids (indexed, to catch duplicates among them).
    private var moved: [Int] = []
    private var movedSlots: [Int32] = []
    private var touched: [Int] = []
    private var newIDs: [AnyHashableSendable] = []
    private var newIndex = SlotIndex()
    private static let noRecord: Int32 = -2
    /// What the cache-warming loads read (kept so they are not dead code; see `SlotIndex.warm`).
    private var warmth: UInt64 = 0

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
    /// declaration as before. Vacant positions (`Channel.vacant()`) declare nothing.
    mutating func reconcile<Action>(_ desired: [Channel<Action>], change: SupervisorChange) -> Int {
        directives.removeAll(keepingCapacity: true)
        examined = 0
        if case .unchanged = change { return 0 }
        // The diff reads the list through its buffer: this runs unspecialised (the engine sits
        // behind one call from the store's specialised drain), where an `Array<Channel<Action>>`
        // subscript or iterator is an out-of-line generic call per position; a buffer of a
        // fixed-layout element is read directly.
        desired.withUnsafeBufferPointer { desired in
            switch change {
            case .unchanged:
                return
            case .ranges(let ranges):
                if reconcileInPlace(desired, ranges: ranges) { return }
            case .resized:
                if reconcileInPlace(desired, ranges: [0..<desired.count]) { return }
            }
            reconcileFully(desired)
        }
        return examined
    }

    /// Drops buffers a large cycle left behind (the directives of opening 100,000 channels are
    /// 5 MiB, and the in-place diff's scratch grows with the positions moved); the engine calls
    /// it once it carried the directives out. Small ones are kept for the next cycle.
    mutating func cycleDone() {
        if directives.capacity > Self.retainedDirectives { directives = [] }
        if moved.capacity > Self.retainedDirectives {
            moved = []
            movedSlots = []
            touched = []
            newIDs = []
            newIndex = SlotIndex()
        }
    }

    /// The directive buffer kept between cycles (a churn of a few thousand channels a cycle).
    static let retainedDirectives = 4_096

    /// The full diff. Records carry two marks per cycle: `seen` (declared in this list) and
    /// `done` (its directive is out, or it is leaving), so no side buffer of records is needed.
    private mutating func reconcileFully<Action>(_ desired: UnsafeBufferPointer<Channel<Action>>) {
        examined = desired.count
        memory.cycle &+= 2
        let seen = memory.cycle &- 1, done = memory.cycle
        if memory.records.capacity < desired.count { memory.records.reserveCapacity(desired.count) }
        memory.index.reserveCapacity(desired.count)

        // Pass 1: a record per id (last declaration wins); the slot declared at each position.
        var slots: [Int32] = []
        slots.reserveCapacity(desired.count)
        var vacancies = 0
        for (position, channel) in desired.enumerated() {
            let id = channel.storage.id
            if id == vacantChannelID {
                slots.append(ReconcileMemory.vacant)
                vacancies += 1
                continue
            }
            if let slot = memory.slot(of: id) {
                memory.records[slot].seenCycle = seen
                memory.records[slot].position = Int32(position)
                slots.append(Int32(slot))
            } else {
                let slot = memory.append(
                    ReconcileMemory.Record(
                        id: id, resetKey: nil, broadcast: nil, stats: ChannelStats(), position: Int32(position), seenCycle: seen,
                        isNew: true
                    ))
                slots.append(Int32(slot))
            }
        }

        // Pass 2: open, recreate or pipe, in the order ids first appear.
        for slot32 in slots where slot32 != ReconcileMemory.vacant {
            let slot = Int(slot32)
            guard memory.records[slot].seenCycle == seen else { continue }  // a duplicate, done
            memory.records[slot].seenCycle = done
            let position = Int(memory.records[slot].position)
            let storage = desired[position].storage
            let resetKey = storage.lifetime.resetKey
            let broadcast = storage.payload.broadcastIdentity
            if memory.records[slot].isNew {
                directives.append(.open(position: position, stats: memory.records[slot].stats))
                memory.records[slot].isNew = false
            } else if memory.records[slot].resetKey != resetKey {
                directives.append(.recreate(position: position, from: memory.records[slot].resetKey, stats: memory.records[slot].stats))
            } else if memory.records[slot].broadcast != broadcast {
                directives.append(.deliver(position: position))
            }
            memory.records[slot].resetKey = resetKey
            memory.records[slot].broadcast = broadcast
        }

        // Pass 3: cancel ids that left the set, in their order in the previous list (every
        // record not declared in this one was in it), then forget them.
        let firstCancel = directives.count
        for slot32 in memory.positions where slot32 != ReconcileMemory.vacant {
            let slot = Int(slot32)
            let mark = memory.records[slot].seenCycle
            guard mark != seen, mark != done else { continue }
            memory.records[slot].seenCycle = done
            directives.append(.cancel(id: memory.records[slot].id, reason: Self.leftTheSet))
        }
        for case .cancel(let id, _) in directives[firstCancel...] { memory.removeRecord(id) }

        // The slots moved by the removals: rebuild the positions from the records.
        if directives.count > firstCancel {
            for position in slots.indices where slots[position] != ReconcileMemory.vacant { slots[position] = -2 }
            for slot in memory.records.indices { slots[Int(memory.records[slot].position)] = Int32(slot) }
            for position in slots.indices where slots[position] == -2 {
                // An earlier declaration of a duplicated id.
                slots[position] = Int32(memory.slot(of: desired[position].storage.id) ?? -1)
            }
        }
        memory.positions = slots
        memory.vacancies = vacancies
    }

    /// The common case: most ids sit at the same positions as last cycle. Unchanged positions
    /// cost a look at their record and no hashing; only positions whose reset key or value
    /// changed, and positions whose id changed (a few ids replaced by others), touch the index.
    /// An unchanged cycle is two linear scans with no allocation.
    ///
    /// Only positions inside `ranges` are examined: the others hold what they held last cycle.
    ///
    /// Returns false, having changed nothing, when the list moved too much or holds duplicates:
    /// then the full diff runs.
    private mutating func reconcileInPlace<Action>(_ desired: UnsafeBufferPointer<Channel<Action>>, ranges: [Range<Int>]) -> Bool {
        let count = desired.count
        // Same length, and last cycle had no duplicate ids (one record per position).
        // Vacant positions (a keyed lift's free slots) have no record.
        guard count == memory.positions.count, memory.records.count + memory.vacancies == count, count > 0 else { return false }
        moved.removeAll(keepingCapacity: true)
        let limit = max(count / 4, 1)
        for range in ranges {
            for position in range where desired[position].storage.id != memory.id(at: position) {
                moved.append(position)
                if moved.count > limit { return false }
            }
        }

        // Ids that changed position, told apart by marks on their records (no Set, no SipHash:
        // the records' own index answers). A record whose position now holds another id is
        // `vacated`; one that reappears at a moved position is `reclaimed` (it moved there).
        // New ids are checked for duplicates in a scratch index. The marks are cleared again
        // on every way out, so the full diff never sees them.
        let neutral = memory.cycle
        let vacated = neutral &+ 3, reclaimed = neutral &+ 4
        var departing: [AnyHashableSendable] = []
        movedSlots.removeAll(keepingCapacity: true)
        if !moved.isEmpty {
            touched.removeAll(keepingCapacity: true)
            for position in moved where memory.positions[position] != ReconcileMemory.vacant {
                let slot = Int(memory.positions[position])
                memory.records[slot].seenCycle = vacated
                touched.append(slot)
            }
            newIDs.removeAll(keepingCapacity: true)
            newIndex.removeAll(keepingCapacity: true)
            newIndex.reserveCapacity(moved.count)
            // The lookups below start at these buckets of a table as large as the store's channels.
            var warmth = self.warmth
            for position in moved { warmth ^= memory.index.warm(desired[position].storage.id) }
            self.warmth = warmth
            var duplicate = false
            for position in moved {
                let id = desired[position].storage.id
                if id == vacantChannelID {
                    movedSlots.append(Self.noRecord)
                    continue
                }
                if let slot = memory.slot(of: id) {
                    // Declared at a position that did not move too, or twice among the moved.
                    guard memory.records[slot].seenCycle == vacated else {
                        duplicate = true
                        break
                    }
                    memory.records[slot].seenCycle = reclaimed
                    movedSlots.append(Int32(slot))
                } else {
                    guard newIDs.withUnsafeBufferPointer({ ids in newIndex.slot(of: id) { ids[$0] } }) == nil else {
                        duplicate = true
                        break
                    }
                    newIndex.insert(id, slot: newIDs.count)
                    newIDs.append(id)
                    movedSlots.append(Self.noRecord)
                }
            }
            // The ids that leave, in their previous order (read before the positions change).
            if !duplicate {
                for slot in touched where memory.records[slot].seenCycle == vacated { departing.append(memory.records[slot].id) }
            }
            for slot in touched { memory.records[slot].seenCycle = neutral }
            if duplicate { return false }
        }

        // The moved positions come in ascending order, as the loop below visits them: a cursor
        // finds each one's slot, looked up above (records appended below do not move slots).
        var cursor = 0
        for range in ranges {
            examined += range.count
            for position in range {
                let storage = desired[position].storage
                let resetKey = storage.lifetime.resetKey
                let broadcast = storage.payload.broadcastIdentity
                let previous = memory.positions[position]
                if previous == ReconcileMemory.vacant {
                    if storage.id == vacantChannelID { continue }
                    memory.vacancies -= 1
                } else {
                    let record = Int(previous)
                    if memory.records[record].id == storage.id, memory.records[record].resetKey == resetKey,
                        memory.records[record].broadcast == broadcast
                    {
                        continue
                    }
                    // A position freed (its id, in `leaving`, is cancelled below) or taken.
                    if storage.id == vacantChannelID {
                        memory.vacancies += 1
                        memory.positions[position] = ReconcileMemory.vacant
                        continue
                    }
                }
                let sameID = previous != ReconcileMemory.vacant && memory.records[Int(previous)].id == storage.id
                var found: Int?
                if sameID {
                    found = Int(previous)
                } else {
                    while moved[cursor] < position { cursor += 1 }
                    let slot = movedSlots[cursor]
                    found = slot == Self.noRecord ? nil : Int(slot)
                }
                if let slot = found {
                    if memory.records[slot].resetKey != resetKey {
                        directives.append(
                            .recreate(position: position, from: memory.records[slot].resetKey, stats: memory.records[slot].stats))
                    } else if memory.records[slot].broadcast != broadcast {
                        directives.append(.deliver(position: position))
                    }
                    memory.records[slot].resetKey = resetKey
                    memory.records[slot].broadcast = broadcast
                    memory.records[slot].position = Int32(position)
                    memory.positions[position] = Int32(slot)
                } else {
                    let stats = ChannelStats()
                    let slot = memory.append(
                        ReconcileMemory.Record(
                            id: storage.id, resetKey: resetKey, broadcast: broadcast, stats: stats, position: Int32(position),
                            seenCycle: memory.cycle, isNew: false
                        ))
                    directives.append(.open(position: position, stats: stats))
                    memory.positions[position] = Int32(slot)
                }
            }
        }
        // Ids that left: cancelled after every open of this cycle. A record moved by the
        // swap-remove keeps its position, which must point at its new slot (unless that record
        // is leaving too: its old position already belongs to another).
        var warmth = self.warmth
        for id in departing { warmth ^= memory.index.warm(id) }
        self.warmth = warmth
        for id in departing {
            directives.append(.cancel(id: id, reason: Self.leftTheSet))
            let lastSlot = Int32(memory.records.count - 1)
            if let moved = memory.removeRecord(id), memory.positions[Int(moved.position)] == lastSlot {
                memory.positions[Int(moved.position)] = Int32(moved.slot)
            }
        }
        return true
    }
}
