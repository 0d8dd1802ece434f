/// What the engine remembers of the previous reconcile cycle.
///
/// One record per id, in a dense array indexed by a `SlotIndex`, and per position of the last
/// desired list only the slot of the record declared there (4 bytes). The id, reset key and
/// value of a position are read through its record, so each is stored once — the per-position
/// signature this replaced held all three again for every position, and a `Dictionary` index
/// held every id a third time (together ~330 of the ~1,000 bytes a live channel cost).
///
/// A cycle whose ids did not move still finishes with linear comparisons (position → record)
/// and touches the index only for entries that changed.
struct ReconcileMemory {
    struct Record {
        let id: AnyHashableSendable
        var resetKey: AnyHashableSendable?
        var broadcast: AnyHashableSendable?
        let stats: ChannelStats
        /// The position of its (last) declaration in the last desired list.
        var position: Int32
        /// The full diff's marks (see `ChannelReconciler`): the cycle that last declared it.
        var seenCycle: UInt32
        /// Declared for the first time this cycle (the full diff opens it).
        var isNew: Bool
    }

    /// Marks a position with no record: `Channel.vacant()`.
    static let vacant: Int32 = -1

    var records: [Record] = []
    var index = SlotIndex()
    /// Per position of the last desired list: the slot of the record declared there (for a
    /// duplicated id, every position it held), or `vacant`.
    var positions: [Int32] = []
    /// The full diff's cycle counter (advanced by two per full cycle; see `ChannelReconciler`).
    var cycle: UInt32 = 0
    /// How many positions of `positions` are vacant.
    var vacancies = 0

    /// The slot of `id`'s record.
    @inline(__always)
    func slot(of id: AnyHashableSendable) -> Int? {
        records.withUnsafeBufferPointer { records in index.slot(of: id) { records[$0].id } }
    }

    /// The id declared at `position` of the last list (the vacant id for a vacant position).
    @inline(__always)
    func id(at position: Int) -> AnyHashableSendable {
        let slot = positions[position]
        return slot == Self.vacant ? vacantChannelID : records[Int(slot)].id
    }

    /// Adds a record for an id that has none; returns its slot.
    mutating func append(_ record: Record) -> Int {
        let slot = records.count
        records.append(record)
        index.insert(record.id, slot: slot)
        return slot
    }

    /// Drops the record of `id` (swap-remove keeps the records dense); returns the slot the
    /// last record moved into and that record's position, if one moved.
    @discardableResult
    mutating func removeRecord(_ id: AnyHashableSendable) -> (slot: Int, position: Int32)? {
        guard let slot = slot(of: id) else { return nil }
        index.remove(id, slot: slot)
        let lastSlot = records.count - 1
        let last = records.removeLast()
        guard slot < lastSlot else { return nil }
        records[slot] = last
        index.move(last.id, from: lastSlot, to: slot)
        return (slot, last.position)
    }
}
