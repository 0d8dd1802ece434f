/// The keyed lift's supervise (`liftCollection(…, stateDictionary:, changes:)`): one inner part
/// per key, each holding a stable slot of positions in `keep`, so the change log's keys alone
/// drive an update — O(changes), whatever the dictionary's size or iteration order.
///
/// A dictionary's order moves when it grows or shrinks, which rules out matching by position
/// (`ElementSupervisor`); here a key keeps its slot until it leaves. A removed key's positions
/// become vacant (`Channel.vacant()`, which the reconciler skips) and its slot joins a free list
/// by width, from which a new key with as many channels takes it. The list ends in a reserve of
/// vacant positions that grows by half its length when used up, so `keep` changes length (a
/// full diff) O(log n) times while n keys arrive, not at every arrival.
///
/// An update whose log lost ids since the last one (more changes than its capacity) walks the
/// whole dictionary and lays every slot out afresh (`resized`); parts follow their key, memo
/// included.
final class KeyedElementSupervisor<GlobalState, ID: Hashable & Sendable, State, Environment, Action: Sendable, GlobalAction: Sendable>:
    SupervisorInstance<GlobalState, Environment, GlobalAction>
{
    struct Slot {
        let part: SupervisorInstance<State, Environment, Action>
        /// The slot's positions: `start ..< start + width`, the first `count` holding channels.
        var start: Int
        var width: Int
        var count: Int
    }

    let access: ElementAccess<GlobalState, ID, State>
    let embed: @Sendable (ID, Action) -> GlobalAction
    let makePart: @Sendable () -> SupervisorInstance<State, Environment, Action>
    /// The change log's revision, and the ids it recorded after a revision (see `ElementChangeLog`).
    let revision: @Sendable (GlobalState) -> UInt64
    let ids: @Sendable (GlobalState, UInt64) -> ArraySlice<ID>?
    /// Every key's slot, dense (a removed key's entry is swapped with the last), found by its
    /// scope through `index`. Not a `[ID: Slot]`: this runs unspecialised behind the class, where
    /// a generic dictionary paid witness calls and value-witness copies per key (a quarter of the
    /// first walk over 100,000 keys went to its inserts).
    private var entries: [Slot] = []
    /// Each entry's key scope (`AnyHashableSendable(id)`), apart so the index reads a concrete array.
    private var scopes: [AnyHashableSendable] = []
    private var index = SlotIndex()
    /// Starts of free slots, by width.
    private var free: [Int: [Int]] = [:]
    /// The first position of the vacant reserve at the end of `keep`.
    private var reserve = 0
    private var seenRevision: UInt64?
    private let vacant = Channel<GlobalAction>.vacant()

    init(
        access: ElementAccess<GlobalState, ID, State>,
        embed: @escaping @Sendable (ID, Action) -> GlobalAction,
        revision: @escaping @Sendable (GlobalState) -> UInt64,
        ids: @escaping @Sendable (GlobalState, UInt64) -> ArraySlice<ID>?,
        makePart: @escaping @Sendable () -> SupervisorInstance<State, Environment, Action>
    ) {
        self.access = access
        self.embed = embed
        self.revision = revision
        self.ids = ids
        self.makePart = makePart
    }

    override func update(_ global: GlobalState, _ environment: Environment) -> SupervisorChange {
        let current = revision(global)
        if let seen = seenRevision {
            if current == seen { return .unchanged }
            if let recorded = ids(global, seen) {
                seenRevision = current
                return updateRecorded(Set(recorded), global, environment)
            }
        }
        seenRevision = current
        walk(global, environment)
        return .resized
    }

    /// The entry of the key scoped as `scope`.
    @inline(__always)
    private func entry(of scope: AnyHashableSendable) -> Int? {
        scopes.withUnsafeBufferPointer { scopes in index.slot(of: scope) { scopes[$0] } }
    }

    private func append(_ slot: Slot, _ scope: AnyHashableSendable) {
        index.insert(scope, slot: entries.count)
        entries.append(slot)
        scopes.append(scope)
    }

    /// Removes entry `position` (the last entry takes its place) and returns it.
    private func removeEntry(at position: Int) -> Slot {
        let removed = entries[position]
        index.remove(scopes[position], slot: position)
        let last = entries.count - 1
        if position != last {
            entries[position] = entries[last]
            scopes[position] = scopes[last]
            index.move(scopes[position], from: last, to: position)
        }
        entries.removeLast()
        scopes.removeLast()
        return removed
    }

    /// Only the recorded keys: each one added, removed or re-evaluated in its slot.
    private func updateRecorded(_ recorded: Set<ID>, _ global: GlobalState, _ environment: Environment) -> SupervisorChange {
        var touched: [Int] = []
        let length = keep.count
        for id in recorded {
            let scope = AnyHashableSendable(id)
            guard let element = access.get(global, id) else {
                if let position = entry(of: scope) {
                    let slot = removeEntry(at: position)
                    vacate(slot.start..<(slot.start + slot.count), &touched)
                    release(slot)
                }
                continue
            }
            guard let position = entry(of: scope) else {
                let part = makePart()
                _ = part.update(element, environment)
                var slot = Slot(part: part, start: 0, width: 0, count: 0)
                place(&slot, id, scope, &touched)
                append(slot, scope)
                continue
            }
            var slot = entries[position]
            switch slot.part.update(element, environment) {
            case .unchanged:
                continue
            case .ranges(let ranges):
                for range in ranges {
                    for index in range {
                        keep[slot.start + index] = lifted(slot.part.keep[index], id, scope, replacing: keep[slot.start + index])
                        touched.append(slot.start + index)
                    }
                }
            case .resized:
                let count = slot.part.keep.count
                if count <= slot.width {
                    for index in 0..<count {
                        keep[slot.start + index] = lifted(slot.part.keep[index], id, scope, replacing: keep[slot.start + index])
                    }
                    if slot.count > count { vacate((slot.start + count)..<(slot.start + slot.count), &touched) }
                    touched.append(contentsOf: slot.start..<(slot.start + count))
                    slot.count = count
                } else {
                    vacate(slot.start..<(slot.start + slot.count), &touched)
                    release(slot)
                    place(&slot, id, scope, &touched)
                }
            }
            entries[position] = slot
        }
        if keep.count != length { return .resized }
        return Self.change(touched)
    }

    /// Lifts one of a part's channels to its key's scope and the global action.
    private func lifted(_ channel: Channel<Action>, _ id: ID, _ scope: AnyHashableSendable) -> Channel<GlobalAction> {
        channel.lifted(toElement: scope, id: id, embed: embed)
    }

    /// `lifted` into a position that held `previous` (its scoped id is reused when the same).
    private func lifted(_ channel: Channel<Action>, _ id: ID, _ scope: AnyHashableSendable, replacing previous: Channel<GlobalAction>)
        -> Channel<GlobalAction>
    {
        channel.lifted(toElement: scope, id: id, embed: embed, replacing: previous)
    }

    /// Gives `slot` positions for its part's channels (a free slot of that width, the reserve,
    /// or a grown reserve) and writes them.
    private func place(_ slot: inout Slot, _ id: ID, _ scope: AnyHashableSendable, _ touched: inout [Int]) {
        let count = slot.part.keep.count
        slot.count = count
        slot.width = count
        guard count > 0 else {
            slot.start = reserve
            return
        }
        if let start = free[count]?.popLast() {
            slot.start = start
        } else {
            if keep.count - reserve < count {
                let grown = max(count, keep.count / 2, 16)
                keep.append(contentsOf: repeatElement(vacant, count: grown))
            }
            slot.start = reserve
            reserve += count
        }
        for index in 0..<count { keep[slot.start + index] = lifted(slot.part.keep[index], id, scope) }
        touched.append(contentsOf: slot.start..<(slot.start + count))
    }

    private func vacate(_ positions: Range<Int>, _ touched: inout [Int]) {
        for position in positions {
            keep[position] = vacant
            touched.append(position)
        }
    }

    private func release(_ slot: Slot) {
        guard slot.width > 0 else { return }
        free[slot.width, default: []].append(slot.start)
    }

    /// The touched positions (any order, repeats allowed) as ascending disjoint ranges.
    static func change(_ touched: [Int]) -> SupervisorChange {
        guard !touched.isEmpty else { return .unchanged }
        var ranges: [Range<Int>] = []
        for position in touched.sorted() {
            if let last = ranges.last, position < last.upperBound { continue }
            if let last = ranges.last, last.upperBound == position {
                ranges[ranges.count - 1] = last.lowerBound..<(position + 1)
            } else {
                ranges.append(position..<(position + 1))
            }
        }
        return .ranges(ranges)
    }

    /// Every key, slots laid out afresh without gaps (parts kept by key).
    ///
    /// The first walk (a store's first update, or a restart's 100,000 restored keys) has no
    /// parts to carry over: it sizes the table and the layout for the dictionary at once
    /// instead of growing them (and rehashing every key) step by step.
    private func walk(_ global: GlobalState, _ environment: Environment) {
        let count = access.count(global)
        let previous = entries
        let previousScopes = scopes
        let previousIndex = index
        entries = []
        entries.reserveCapacity(count)
        scopes = []
        scopes.reserveCapacity(count)
        index = SlotIndex()
        index.reserveCapacity(count)
        free.removeAll()
        var next: Keep<GlobalAction> = []
        next.reserveCapacity(max(reserve, count))
        previousScopes.withUnsafeBufferPointer { previousScopes in
            access.forEach(global) { id, element in
                let scope = AnyHashableSendable(id)
                // A dictionary's keys are distinct: each old part is found at most once.
                let part: SupervisorInstance<State, Environment, Action>
                if !previousScopes.isEmpty, let old = previousIndex.slot(of: scope, idAt: { previousScopes[$0] }) {
                    part = previous[old].part
                } else {
                    part = makePart()
                }
                _ = part.update(element, environment)
                let slot = Slot(part: part, start: next.count, width: part.keep.count, count: part.keep.count)
                for channel in part.keep { next.append(lifted(channel, id, scope)) }
                append(slot, scope)
            }
        }
        reserve = next.count
        keep = next
    }
}
