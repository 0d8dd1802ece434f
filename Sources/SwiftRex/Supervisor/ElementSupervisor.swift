/// The collection lifts' supervise: one inner part per element, each with its own memo, so an
/// update re-evaluates an element's supervise only as its own memo decides (a memoised element
/// whose input did not change costs one comparison and builds no channel).
///
/// Elements are matched to their parts by position first (the common case: the container kept
/// its order), and by id when the layout changed (elements added, removed or moved); a part then
/// follows its element, memo included.
final class ElementSupervisor<GlobalState, ID: Hashable & Sendable, State, Environment, Action: Sendable, GlobalAction: Sendable>:
    SupervisorInstance<GlobalState, Environment, GlobalAction> {
    struct Element {
        let id: ID
        let scope: AnyHashableSendable
        let part: SupervisorInstance<State, Environment, Action>
        /// Where this element's channels start in `keep`, and how many there are.
        var start: Int
        var count: Int
        /// Whether this update changed the part's channels (or the element is new), so its
        /// slice of the last `keep` cannot be reused.
        var stale: Bool
    }

    let access: ElementAccess<GlobalState, ID, State>
    let embed: @Sendable (ID, Action) -> GlobalAction
    let makePart: @Sendable () -> SupervisorInstance<State, Environment, Action>
    private var elements: [Element] = []

    init(
        access: ElementAccess<GlobalState, ID, State>,
        embed: @escaping @Sendable (ID, Action) -> GlobalAction,
        makePart: @escaping @Sendable () -> SupervisorInstance<State, Environment, Action>
    ) {
        self.access = access
        self.embed = embed
        self.makePart = makePart
    }

    private func lifted(_ channel: Channel<Action>, _ element: Element) -> Channel<GlobalAction> {
        let id = element.id
        let embed = self.embed
        return channel.lifted(toElement: element.scope) { embed(id, $0) }
    }

    override func update(_ global: GlobalState, _ environment: Environment) -> SupervisorChange {
        var collector = SupervisorChangeCollector()
        var position = 0
        // Set once the layout differs from the last update: from then on elements are gathered
        // into `rebuilt`, reusing parts by id.
        var rebuilt: [Element]?
        var spare: [ID: Element] = [:]
        access.forEach(global) { id, element in
            if rebuilt == nil, position < elements.count, elements[position].id == id {
                let entry = elements[position]
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
                    collector.markResized()
                    elements[position].stale = true
                }
            } else {
                if rebuilt == nil {
                    rebuilt = Array(elements[..<min(position, elements.count)])
                    for entry in elements[min(position, elements.count)...] { spare[entry.id] = entry }
                }
                var entry = spare.removeValue(forKey: id)
                    ?? Element(id: id, scope: AnyHashableSendable(id), part: makePart(), start: 0, count: 0, stale: true)
                if entry.part.update(element, environment) != .unchanged { entry.stale = true }
                rebuilt!.append(entry)
            }
            position += 1
        }
        if rebuilt == nil, position < elements.count {
            rebuilt = Array(elements[..<position])
        }
        if let rebuilt {
            elements = rebuilt
            collector.markResized()
        }
        guard collector.resized else { return collector.change }
        // Lengths or layout changed: lay every element's channels out again.
        var next: Keep<GlobalAction> = []
        next.reserveCapacity(keep.count)
        for index in elements.indices {
            let entry = elements[index]
            if entry.stale {
                for channel in entry.part.keep { next.append(lifted(channel, entry)) }
            } else {
                // Unchanged: its lifted channels are still in the last layout.
                next.append(contentsOf: keep[entry.start..<(entry.start + entry.count)])
            }
            elements[index].start = next.count - entry.part.keep.count
            elements[index].count = entry.part.keep.count
            elements[index].stale = false
        }
        keep = next
        return .resized
    }
}
