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
    struct Element {
        let id: ID
        let scope: AnyHashableSendable
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
    private var elements: [Element] = []
    /// With a change log: the log's revision at the last update, and each id's position.
    private var seenRevision: UInt64?
    private var positions: [ID: Int] = [:]

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

    private func lifted(_ channel: Channel<Action>, _ element: Element) -> Channel<GlobalAction> {
        let id = element.id
        let embed = self.embed
        return channel.lifted(toElement: element.scope) { embed(id, $0) }
    }

    private func newElement(_ id: ID) -> Element {
        Element(id: id, scope: AnyHashableSendable(id), part: makePart(), start: 0, count: 0, stale: true)
    }

    override func update(_ global: GlobalState, _ environment: Environment) -> SupervisorChange {
        var collector = SupervisorChangeCollector()
        let log = changes?(global)
        if let log, let seen = seenRevision {
            if log.revision == seen { return .unchanged }
            if access.count(global) == elements.count, let elementAt = access.elementAt, let ids = log.ids(after: seen),
                updateRecorded(ids, global, environment, elementAt, &collector)
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
        if log != nil {
            // A walk (the first update, a new length, or a log that lost ids): index afresh.
            positions.removeAll(keepingCapacity: true)
            for (index, entry) in elements.enumerated() { positions[entry.id] = index }
        }
        return collector.resized ? .resized : collector.change
    }

    /// Same length, and the ids recorded since the last update: only the positions they held.
    ///
    /// Sound under the log's contract: a position not examined held an unrecorded element, which
    /// was neither removed nor changed; had it moved (an insertion and a removal shift the
    /// elements between them), an examined position would now hold an unrecorded element other
    /// than its own — which sends the update to the walk instead. Returns false, having changed
    /// nothing, in that case.
    private func updateRecorded(
        _ ids: ArraySlice<ID>, _ global: GlobalState, _ environment: Environment,
        _ elementAt: @Sendable (GlobalState, Int) -> (ID, State), _ collector: inout SupervisorChangeCollector
    ) -> Bool {
        let recorded = Set(ids)
        var examined: [Int] = []
        examined.reserveCapacity(recorded.count)
        for id in recorded { if let position = positions[id] { examined.append(position) } }
        examined.sort()
        // Read once: each read projects the container out of the global state.
        var current: [(ID, State)] = []
        current.reserveCapacity(examined.count)
        for position in examined {
            let entry = elementAt(global, position)
            if entry.0 != elements[position].id, !recorded.contains(entry.0) { return false }
            current.append(entry)
        }
        for (index, position) in examined.enumerated() {
            let (id, element) = current[index]
            let previous = elements[position].id
            examine(position, id, element, environment, &collector)
            if previous != id {
                if positions[previous] == position { positions.removeValue(forKey: previous) }
                positions[id] = position
            }
        }
        return true
    }

    /// Same length: element `i` is compared with what position `i` held.
    private func updateByPosition(_ global: GlobalState, _ environment: Environment, _ collector: inout SupervisorChangeCollector) {
        var position = 0
        access.forEach(global) { id, element in
            examine(position, id, element, environment, &collector)
            position += 1
        }
    }

    /// Brings position `position`, now holding element `id`, up to date.
    private func examine(
        _ position: Int, _ id: ID, _ element: State, _ environment: Environment, _ collector: inout SupervisorChangeCollector
    ) {
        var entry = elements[position]
        if entry.id != id {
            // Another element took this position: it inherits the position's part. That is what
            // a fresh part would declare — a part's channels are a function of what its memos
            // read — minus a supervise run when the inputs compare equal. Its channels are lifted
            // again (the element scope is part of their ids), in place if there are as many.
            let part = entry.part
            _ = part.update(element, environment)
            entry = Element(id: id, scope: AnyHashableSendable(id), part: part, start: entry.start, count: entry.count, stale: false)
            if part.keep.count == entry.count {
                for index in 0..<entry.count { keep[entry.start + index] = lifted(part.keep[index], entry) }
                if entry.count > 0 { collector.add(.ranges([0..<entry.count]), at: entry.start) }
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
                for index in range { keep[entry.start + index] = lifted(entry.part.keep[index], entry) }
            }
            collector.add(change, at: entry.start)
        case .resized:
            elements[position].stale = true
            collector.markResized()
        }
    }

    /// A new length: parts are found by id (kept with their memo), new ids get fresh ones.
    private func updateByID(_ global: GlobalState, _ environment: Environment) {
        var previous: [ID: Element] = [:]
        previous.reserveCapacity(elements.count)
        for entry in elements { previous[entry.id] = entry }
        var next: [Element] = []
        next.reserveCapacity(access.count(global))
        access.forEach(global) { id, element in
            var entry = previous.removeValue(forKey: id) ?? newElement(id)
            if entry.part.update(element, environment) != .unchanged { entry.stale = true }
            next.append(entry)
        }
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
                for channel in entry.part.keep { next.append(lifted(channel, entry)) }
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
