/// A hash index from ids to slots of a dense array its owner keeps: open addressing with linear
/// probing, 8 bytes per bucket.
///
/// Why not `[AnyHashableSendable: Int]`: a Swift dictionary stores each key again (32 bytes)
/// next to its value, at a load factor of at most 3/4 over a power-of-two table, so at 100,000
/// ids it holds 262,144 buckets of 40 bytes — 105 bytes per id, for ids the dense array already
/// holds. Here a bucket is the slot plus 32 bits of the id's hash (so a probe rarely has to look
/// at the dense array); the ids themselves are read from the owner through `idAt`.
///
/// Removal shifts the following run back (no tombstones), so lookups never slow down with churn.
struct SlotIndex {
    /// `(hash tag << 32) | (slot + 1)`; 0 marks an empty bucket.
    private var buckets: [UInt64]
    private var shift: UInt32
    /// Ids indexed.
    private(set) var count = 0
    /// Buckets allocated (what `removeAll(keepingCapacity: true)` clears).
    var bucketCount: Int { buckets.count }

    private static let minimumBits: UInt32 = 4

    init() {
        buckets = []
        shift = 32 - Self.minimumBits
    }

    /// The 32-bit tag of an id (its precomputed hash, mixed so that every bit counts); a bucket's
    /// home is the tag's top bits.
    ///
    /// The high half is folded into the low one before the multiply: an `Int` id's hash is the
    /// number times the same golden-ratio constant, and multiplying by it again left the top bits
    /// of consecutive numbers in clusters — at 100,000 ids in 262,144 buckets an id sat 33 buckets
    /// from its home on average, in runs of up to 89 (a probe, and a removal's backward shift,
    /// walked them). Folded, it is 0.3 buckets, as for random hashes.
    @inline(__always)
    private static func tag(_ id: AnyHashableSendable) -> UInt32 {
        let hash = UInt64(bitPattern: Int64(id.hashCode))
        return UInt32(truncatingIfNeeded: ((hash ^ (hash >> 32)) &* 0x9E37_79B9_7F4A_7C15) >> 32)
    }

    @inline(__always)
    private func home(_ tag: UInt32) -> Int { Int(tag >> shift) }

    private var mask: Int { buckets.count - 1 }

    /// The slot of `id`, if indexed.
    @inline(__always)
    func slot(of id: AnyHashableSendable, idAt: (Int) -> AnyHashableSendable) -> Int? {
        guard count > 0 else { return nil }
        let tag = Self.tag(id)
        var bucket = home(tag)
        let mask = self.mask
        return buckets.withUnsafeBufferPointer { table in
            while true {
                let entry = table[bucket]
                if entry == 0 { return nil }
                if UInt32(truncatingIfNeeded: entry >> 32) == tag {
                    let slot = Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1
                    if idAt(slot) == id { return slot }
                }
                bucket = (bucket + 1) & mask
            }
        }
    }

    /// Reads the bucket a probe for `id` starts at and returns it (0 for an empty index).
    ///
    /// For a batch of lookups into a large index: a loop that only warms every id's bucket makes
    /// independent loads, whose cache misses the CPU overlaps, where probes interleaved with other
    /// work wait for each miss in turn (at 100,000 ids a probe is a miss, ~100 ns). The caller
    /// folds the results into a value it stores, or the loads would be dead code.
    @inline(__always)
    func warm(_ id: AnyHashableSendable) -> UInt64 {
        guard count > 0 else { return 0 }
        let bucket = home(Self.tag(id))
        return buckets.withUnsafeBufferPointer { $0[bucket] }
    }

    /// Indexes `id` (not indexed yet) at `slot`.
    mutating func insert(_ id: AnyHashableSendable, slot: Int) {
        precondition(slot >= 0 && slot < Int(UInt32.max), "SlotIndex: slot out of range")
        if (count + 1) * 4 > buckets.count * 3 { grow(toHold: count + 1) }
        place(tag: Self.tag(id), slot: slot)
        count += 1
    }

    private mutating func place(tag: UInt32, slot: Int) {
        var bucket = home(tag)
        let mask = self.mask
        while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        buckets[bucket] = UInt64(tag) << 32 | UInt64(slot + 1)
    }

    /// Makes room for `capacity` ids without growing again (at most 3/4 full).
    mutating func reserveCapacity(_ capacity: Int) {
        if capacity * 4 > buckets.count * 3 { grow(toHold: capacity) }
    }

    private mutating func grow(toHold needed: Int) {
        var bits = Self.minimumBits
        while (1 << bits) * 3 < needed * 4 { bits += 1 }
        precondition(bits < 32, "SlotIndex: too many ids")
        let old = buckets
        buckets = Array(repeating: 0, count: 1 << bits)
        shift = 32 - bits
        for entry in old where entry != 0 {
            place(tag: UInt32(truncatingIfNeeded: entry >> 32), slot: Int(truncatingIfNeeded: entry & 0xFFFF_FFFF) - 1)
        }
    }

    /// The bucket holding `slot` for `id`.
    private func bucket(of id: AnyHashableSendable, slot: Int) -> Int? {
        guard count > 0 else { return nil }
        let wanted = UInt64(Self.tag(id)) << 32 | UInt64(slot + 1)
        var bucket = home(Self.tag(id))
        while buckets[bucket] != 0 {
            if buckets[bucket] == wanted { return bucket }
            bucket = (bucket + 1) & mask
        }
        return nil
    }

    /// Drops `id`, indexed at `slot`.
    mutating func remove(_ id: AnyHashableSendable, slot: Int) {
        guard var hole = bucket(of: id, slot: slot) else { return }
        count -= 1
        // Backward shift: pull every later entry of the run that may live in the hole.
        let mask = self.mask
        var next = (hole + 1) & mask
        while buckets[next] != 0 {
            let entryHome = home(UInt32(truncatingIfNeeded: buckets[next] >> 32))
            // The entry may move to `hole` unless its home lies cyclically in (hole, next].
            if (next &- entryHome) & mask >= (next &- hole) & mask {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = 0
    }

    /// How far the indexed ids sit from their home buckets, on average (what a lookup walks; a
    /// test of the tag's mixing).
    var meanDisplacement: Double {
        guard count > 0 else { return 0 }
        var total = 0
        for (bucket, entry) in buckets.enumerated() where entry != 0 {
            total += (bucket &- home(UInt32(truncatingIfNeeded: entry >> 32))) & mask
        }
        return Double(total) / Double(count)
    }

    /// `id` moved from slot `old` to slot `new` in the owner's array (a swap-remove).
    mutating func move(_ id: AnyHashableSendable, from old: Int, to new: Int) {
        guard let bucket = bucket(of: id, slot: old) else { return }
        buckets[bucket] = buckets[bucket] & 0xFFFF_FFFF_0000_0000 | UInt64(new + 1)
    }

    /// Forgets every id; with `keepingCapacity` the table stays allocated.
    mutating func removeAll(keepingCapacity: Bool = false) {
        count = 0
        if keepingCapacity {
            for index in buckets.indices { buckets[index] = 0 }
        } else {
            buckets = []
            shift = 32 - Self.minimumBits
        }
    }
}
