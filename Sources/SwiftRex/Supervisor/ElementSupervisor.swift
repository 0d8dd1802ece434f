/// The collection lifts' supervise: one inner part per element, each with its own memo, so an
/// update re-evaluates an element's supervise only as its own memo decides (a memoised element
/// whose input did not change costs one comparison and builds no channel).
///
/// While the container keeps its length, elements are matched to parts by position: an element
/// whose id differs from the one last seen there takes over that position's part, and if it
/// declares as many channels as its predecessor only its positions are reported. When the
/// length changes, parts are matched by id instead and follow their element, memo included.
///
/// With a change log (`liftCollection(…, changes:)`) an update that finds the log's revision
/// unchanged returns at once, and one that finds the same length and the log still holding
/// every id since the last update examines only the positions those ids held: by the log's
/// contract every position that differs held a recorded id before (see `ElementChanges`).
final class ElementSupervisor<GlobalState, ID: Hashable & Sendable, State, Environment, Action: Sendable, GlobalAction: Sendable>:
    SupervisorInstance<GlobalState, Environment, GlobalAction>
{
    /// One position's part and where its channels sit in `keep`. Free of the element's own
    /// types (the id lives in `ids`, its scope in `scopes`), so copying one is a plain copy,
    /// not a value-witness call: this code runs unspecialised, behind the class.
    struct Element {
        let part: SupervisorInstance<State, Environment, Action>
        /// Where this element's channels start in `keep`, and how many there are.
        var start: Int
        var count: Int
        /// Whether `keep` lacks this update's channels of the element (it is new there, or it
        /// declares a different number of channels), so the layout must be redone.
        var stale: Bool
    }

    let access: ElementAccess<GlobalState, ID, State>
    let embed: @Sendable (ID, Action) -> GlobalAction
    let makePart: @Sendable () -> SupervisorInstance<State, Environment, Action>
    let changes: (@Sendable (GlobalState) -> ElementChanges<ID>)?
    // Unchecked exclusivity (every `var` of this class): it is used on the store's executor
    // only, by the runtime's update and by nothing a caller can reach (the closures it calls —
    // the lift's access, the parts' memos — hold no reference to it), and no two accesses to one
    // property overlap (a buffer read while another property changes, never the same one). The
    // dynamic checks were about 6 % of a churn cycle (a TLS lookup per access, dozens per element).
    /// Per position: the element's id, its scope (`AnyHashableSendable(id)`, what its channels'
    /// ids are scoped to and what the indexes below hash) and its part.
    @exclusivity(unchecked) private var ids: [ID] = []
    @exclusivity(unchecked) private var scopes: [AnyHashableSendable] = []
    @exclusivity(unchecked) private var elements: [Element] = []
    /// With a change log: the log's revision at the last update, and each scope's position
    /// (slots of the index are positions, read back through `scopes`).
    @exclusivity(unchecked) private var seenRevision: UInt64?
    @exclusivity(unchecked) private var positions = SlotIndex()
    /// Scratch of `updateRecorded`, kept between updates so a churn cycle allocates little of it
    /// (the ids and states read at the examined positions are two fresh arrays a cycle, filled
    /// through their buffers): the distinct recorded scopes (and their index), the positions they
    /// held, and what those positions hold now.
    @exclusivity(unchecked) private var recorded: [AnyHashableSendable] = []
    @exclusivity(unchecked) private var recordedIndex = SlotIndex()
    @exclusivity(unchecked) private var examined: [Int] = []
    @exclusivity(unchecked) private var currentIDs: [ID] = []
    @exclusivity(unchecked) private var currentScopes: [AnyHashableSendable] = []
    @exclusivity(unchecked) private var currentStates: [State] = []
    /// The recorded ids' scopes in log order (scratch of `collectRecorded`).
    @exclusivity(unchecked) private var loggedScopes: [AnyHashableSendable] = []
    /// What the cache-warming loads read (kept so they are not dead code; see `SlotIndex.warm`).
    @exclusivity(unchecked) private var warmth: UInt64 = 0

    init(
        access: ElementAccess<GlobalState, ID, State>,
        embed: @escaping @Sendable (ID, Action) -> GlobalAction,
        changes: (@Sendable (GlobalState) -> ElementChanges<ID>)? = nil,
        makePart: @escaping @Sendable () -> SupervisorInstance<State, Environment, Action>
    ) {
        self.access = access
        self.embed = embed
        self.changes = changes
        self.makePart = makePart
    }

    @inline(__always)
    private func lifted(_ channel: Channel<Action>, _ id: ID, _ scope: AnyHashableSendable) -> Channel<GlobalAction> {
        channel.lifted(toElement: scope, id: id, embed: embed)
    }

    override func update(_ global: GlobalState, _ environment: Environment) -> SupervisorChange {
        var collector = SupervisorChangeCollector()
        let log = changes?(global)
        if let log, let seen = seenRevision {
            if log.revision == seen { return .unchanged }
            if access.count(global) == elements.count, let elementsAt = access.elementsAt, let ids = log.ids(after: seen),
                updateRecorded(ids, global, environment, elementsAt, &collector)
            {
                seenRevision = log.revision
                guard collector.resized else { return collector.change }
                relayout()
                return .resized
            }
        }
        seenRevision = log?.revision
        if access.count(global) == elements.count {
            updateByPosition(global, environment, &collector)
        } else {
            updateByID(global, environment)
            collector.markResized()
        }
        if collector.resized { relayout() }
        if log != nil { reindex() }
        return collector.resized ? .resized : collector.change
    }

    /// A walk (the first update, a new length, or a log that lost ids): every position indexed
    /// afresh; of a repeated id (against the log's contract) the last position wins.
    private func reindex() {
        positions.removeAll(keepingCapacity: true)
        positions.reserveCapacity(scopes.count)
        scopes.withUnsafeBufferPointer { scopes in
            for position in scopes.indices {
                let scope = scopes[position]
                if let earlier = positions.slot(of: scope, idAt: { scopes[$0] }) {
                    positions.move(scope, from: earlier, to: position)
                } else {
                    positions.insert(scope, slot: position)
                }
            }
        }
    }

    /// The position indexed for `scope`, if any.
    @inline(__always)
    private func position(of scope: AnyHashableSendable) -> Int? {
        scopes.withUnsafeBufferPointer { scopes in positions.slot(of: scope) { scopes[$0] } }
    }

    /// Same length, and the ids recorded since the last update: only the positions they held.
    ///
    /// Sound under the log's contract: a position not examined held an unrecorded element, which
    /// was neither removed nor changed; had it moved (an insertion and a removal shift the
    /// elements between them), an examined position would now hold an unrecorded element other
    /// than its own — which sends the update to the walk instead. Returns false, having changed
    /// nothing, in that case.
    ///
    /// Works on scopes (`AnyHashableSendable`, hashed once at wrapping) in `SlotIndex`es rather
    /// than a `Set<ID>` and a `[ID: Int]`: this code is not specialised for the element's types,
    /// and the generic containers paid a metadata lookup and witness calls per id.
    private func updateRecorded(
        _ ids: ArraySlice<ID>, _ global: GlobalState, _ environment: Environment,
        _ elementsAt: @Sendable (GlobalState, [Int], (ID, State) -> Void) -> Void, _ collector: inout SupervisorChangeCollector
    ) -> Bool {
        collectRecorded(ids)
        examined.sort()
        // Read once: a read projects the container out of the global state. The generic arrays
        // are filled through their buffers (an `append` looked up the array's metadata per call).
        currentScopes.removeAll(keepingCapacity: true)
        let expected = examined.count
        var states: [State] = []
        currentIDs = [ID](unsafeUninitializedCapacity: expected) { ids, idCount in
            states = [State](unsafeUninitializedCapacity: expected) { states, stateCount in
                elementsAt(global, examined) { id, element in
                    guard idCount < expected else { return }  // more than asked for: not ours
                    (ids.baseAddress! + idCount).initialize(to: id)
                    (states.baseAddress! + stateCount).initialize(to: element)
                    idCount += 1
                    stateCount += 1
                    currentScopes.append(AnyHashableSendable(id))
                }
            }
        }
        currentStates = states
        guard currentIDs.count == expected else { return false }
        let fits = recorded.withUnsafeBufferPointer { recorded in
            for (index, position) in examined.enumerated() {
                let scope = currentScopes[index]
                if scope != scopes[position], recordedIndex.slot(of: scope, idAt: { recorded[$0] }) == nil { return false }
            }
            return true
        }
        guard fits else { return false }
        withBuffers { ids, elements, keep in
            for (index, position) in examined.enumerated() {
                let scope = currentScopes[index]
                let previous = scopes[position]
                if previous != scope {
                    // `previous` leaves this position; `scope` arrives (from another examined
                    // position, still indexed there, or new).
                    positions.remove(previous, slot: position)
                    if let from = self.position(of: scope) {
                        positions.move(scope, from: from, to: position)
                    } else {
                        positions.insert(scope, slot: position)
                    }
                }
                examine(
                    position, currentIDs[index], scope, currentStates[index], environment, &collector, ids: ids, elements: elements,
                    keep: keep)
            }
        }
        return true
    }

    /// Runs `body` with `ids`, `elements` and `keep` as buffers, for a loop of `examine`s.
    ///
    /// This code is not specialised: every write into one of these generic arrays called
    /// `Array._makeMutableAndUnique` with the array's metadata, looked up again at each call (5 of
    /// the 9 metadata lookups per element of a churn cycle). Through buffers, once per loop. While
    /// `body` runs the arrays are moved out (empty): it must not read them through `self`.
    @inline(__always)
    private func withBuffers<R>(
        _ body: (UnsafeMutableBufferPointer<ID>, UnsafeMutableBufferPointer<Element>, UnsafeMutableBufferPointer<Channel<GlobalAction>>)
            -> R
    ) -> R {
        ids.withUnsafeMutableBufferPointer { ids in
            elements.withUnsafeMutableBufferPointer { elements in
                keep.withUnsafeMutableBufferPointer { keep in body(ids, elements, keep) }
            }
        }
    }

    /// Fills `recorded` with the distinct scopes of `ids` and `examined` with the positions they
    /// held at the last update.
    private func collectRecorded(_ ids: ArraySlice<ID>) {
        recorded.removeAll(keepingCapacity: true)
        examined.removeAll(keepingCapacity: true)
        // A table sized for the largest churn seen would be cleared bucket by bucket every cycle.
        if recordedIndex.bucketCount > 8 * max(ids.count, 64) { recordedIndex = SlotIndex() }
        recordedIndex.removeAll(keepingCapacity: true)
        recordedIndex.reserveCapacity(ids.count)
        // The scopes first, and the buckets of `positions` their lookups below start at warmed in
        // a loop of their own: those lookups then find them in cache.
        loggedScopes.removeAll(keepingCapacity: true)
        loggedScopes.reserveCapacity(ids.count)
        for id in ids { loggedScopes.append(AnyHashableSendable(id)) }
        var warmth = self.warmth
        for scope in loggedScopes { warmth ^= positions.warm(scope) }
        self.warmth = warmth
        for scope in loggedScopes {
            let seen = recorded.withUnsafeBufferPointer { recorded in recordedIndex.slot(of: scope) { recorded[$0] } }
            guard seen == nil else { continue }
            recordedIndex.insert(scope, slot: recorded.count)
            recorded.append(scope)
            if let position = position(of: scope) { examined.append(position) }
        }
    }

    /// Same length: element `i` is compared with what position `i` held.
    private func updateByPosition(_ global: GlobalState, _ environment: Environment, _ collector: inout SupervisorChangeCollector) {
        var position = 0
        withBuffers { ids, elements, keep in
            access.forEach(global) { id, element in
                let scope = AnyHashableSendable(id)
                examine(position, id, scope, element, environment, &collector, ids: ids, elements: elements, keep: keep)
                position += 1
            }
        }
    }

    /// Brings position `position`, now holding element `id` (scoped as `scope`), up to date, in
    /// `ids`, `elements` and `keep` (the arrays, as `withBuffers` lends them) and `scopes`.
    @inline(__always)
    private func examine(
        _ position: Int, _ id: ID, _ scope: AnyHashableSendable, _ element: State, _ environment: Environment,
        _ collector: inout SupervisorChangeCollector, ids: UnsafeMutableBufferPointer<ID>,
        elements: UnsafeMutableBufferPointer<Element>, keep: UnsafeMutableBufferPointer<Channel<GlobalAction>>
    ) {
        var entry = elements[position]
        if scopes[position] != scope {
            // Another element took this position: it inherits the position's part. That is what
            // a fresh part would declare — a part's channels are a function of what its memos
            // read — minus a supervise run when the inputs compare equal. Its channels are lifted
            // again (the element scope is part of their ids), in place if there are as many.
            _ = entry.part.update(element, environment)
            entry.stale = false
            ids[position] = id
            scopes[position] = scope
            if entry.part.keep.count == entry.count {
                for index in 0..<entry.count { keep[entry.start + index] = lifted(entry.part.keep[index], id, scope) }
                if entry.count > 0 { collector.add(entry.start..<(entry.start + entry.count)) }
            } else {
                entry.stale = true
                collector.markResized()
            }
            elements[position] = entry
            return
        }
        let change = entry.part.update(element, environment)
        switch change {
        case .unchanged:
            break
        case .ranges(let ranges):
            for range in ranges {
                for index in range {
                    keep[entry.start + index] = entry.part.keep[index].lifted(
                        toElement: scope, id: id, embed: embed, replacing: keep[entry.start + index])
                }
            }
            collector.add(change, at: entry.start)
        case .resized:
            elements[position].stale = true
            collector.markResized()
        }
    }

    /// A new length: parts are found by id (kept with their memo), new ids get fresh ones.
    private func updateByID(_ global: GlobalState, _ environment: Environment) {
        let count = access.count(global)
        var nextIDs: [ID] = []
        var nextScopes: [AnyHashableSendable] = []
        var next: [Element] = []
        nextIDs.reserveCapacity(count)
        nextScopes.reserveCapacity(count)
        next.reserveCapacity(count)
        // The old positions by scope; a part is taken once (a repeated id gets a fresh one).
        var previous = SlotIndex()
        var taken: [Bool] = []
        if !elements.isEmpty {
            previous.reserveCapacity(scopes.count)
            scopes.withUnsafeBufferPointer { scopes in
                for position in scopes.indices {
                    // A repeated id (against the contract): the last position's part is kept.
                    if let earlier = previous.slot(of: scopes[position], idAt: { scopes[$0] }) {
                        previous.move(scopes[position], from: earlier, to: position)
                    } else {
                        previous.insert(scopes[position], slot: position)
                    }
                }
            }
            taken = Array(repeating: false, count: elements.count)
        }
        access.forEach(global) { id, element in
            let scope = AnyHashableSendable(id)
            var entry: Element
            if !taken.isEmpty, let old = scopes.withUnsafeBufferPointer({ scopes in previous.slot(of: scope) { scopes[$0] } }),
                !taken[old]
            {
                taken[old] = true
                entry = elements[old]
            } else {
                entry = Element(part: makePart(), start: 0, count: 0, stale: true)
            }
            if entry.part.update(element, environment) != .unchanged { entry.stale = true }
            nextIDs.append(id)
            nextScopes.append(scope)
            next.append(entry)
        }
        ids = nextIDs
        scopes = nextScopes
        elements = next
    }

    /// Lays every element's channels out again; an element that is not stale still has them in
    /// the last layout (lifted), which is reused as is.
    private func relayout() {
        var next: Keep<GlobalAction> = []
        next.reserveCapacity(keep.count)
        for index in elements.indices {
            let entry = elements[index]
            if entry.stale {
                for channel in entry.part.keep { next.append(lifted(channel, ids[index], scopes[index])) }
            } else {
                next.append(contentsOf: keep[entry.start..<(entry.start + entry.count)])
            }
            elements[index].start = next.count - entry.part.keep.count
            elements[index].count = entry.part.keep.count
            elements[index].stale = false
        }
        keep = next
    }
}
