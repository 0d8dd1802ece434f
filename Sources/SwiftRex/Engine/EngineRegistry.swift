/// The engine's registry: what runs under each id (one slot per id), dense arrays plus a
/// `SlotIndex`.
///
/// A `Dictionary<AnyHashableSendable, EngineSlot>` cost about 126 bytes per id at 100,000 ids
/// (a power-of-two table at most 3/4 full stores key and value per bucket); here an id costs its
/// key and slot once (48 bytes) plus its share of the index (8 bytes per bucket). Removal is a
/// swap with the last entry, so iteration order is not insertion order (the snapshot sorts by
/// each instance's open order).
///
/// The entries are stored in a non-generic form (`StoredEngineSlot`): the engine runs
/// unspecialised behind the store, and an array of `EngineSlot<Action>` paid a generic-metadata
/// lookup on every append, swap and removal.
struct EngineRegistry<Action: Sendable> {
    private(set) var keys: [AnyHashableSendable] = []
    private var stored: [StoredEngineSlot] = []
    private var index = SlotIndex()

    /// Ids registered.
    var count: Int { keys.count }

    /// What runs under each of `keys`, in the same order.
    var slots: LazyMapSequence<[StoredEngineSlot], EngineSlot<Action>> { stored.lazy.map { $0.typed() } }

    @inline(__always)
    private func position(of key: AnyHashableSendable) -> Int? {
        keys.withUnsafeBufferPointer { keys in index.slot(of: key) { keys[$0] } }
    }

    /// Reads the index bucket a lookup of `key` starts at (see `SlotIndex.warm`).
    @inline(__always)
    func warm(_ key: AnyHashableSendable) -> UInt64 { index.warm(key) }

    /// What runs under `key`; assigning nil removes it.
    ///
    /// Inlined (as `removeValue`): called from the engine, which runs unspecialised, each call out
    /// of line looked up this type's generic metadata (3 per replaced channel in a churn cycle).
    @inline(__always)
    subscript(key: AnyHashableSendable) -> EngineSlot<Action>? {
        get {
            guard let position = position(of: key) else { return nil }
            return stored[position].typed()
        }
        set {
            guard let newValue else {
                removeValue(forKey: key)
                return
            }
            if let position = position(of: key) {
                stored[position] = StoredEngineSlot(newValue)
            } else {
                index.insert(key, slot: keys.count)
                keys.append(key)
                stored.append(StoredEngineSlot(newValue))
            }
        }
    }

    /// Removes and returns what runs under `key`.
    @discardableResult @inline(__always)
    mutating func removeValue(forKey key: AnyHashableSendable) -> EngineSlot<Action>? {
        guard let position = position(of: key) else { return nil }
        index.remove(key, slot: position)
        let last = keys.count - 1
        let removed: StoredEngineSlot
        if position == last {
            keys.removeLast()
            removed = stored.removeLast()
        } else {
            removed = stored[position]
            let movedKey = keys.removeLast()
            stored[position] = stored.removeLast()
            keys[position] = movedKey
            index.move(movedKey, from: last, to: position)
        }
        return removed.typed()
    }

    /// Makes room for `capacity` ids; used before a large first open, so the arrays are not left
    /// up to twice the size they need.
    mutating func reserveCapacity(_ capacity: Int) {
        keys.reserveCapacity(capacity)
        stored.reserveCapacity(capacity)
        index.reserveCapacity(capacity)
    }
}
