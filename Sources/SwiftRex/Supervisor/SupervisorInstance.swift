/// One store's running evaluation of (a part of) a behavior's supervise: the channels it
/// declared at its last update and whatever it memoises, so an update whose inputs did not change
/// builds no channel and names nothing for the engine to diff.
///
/// Lives on the store's executor (created by the store from its behavior's `SupervisorPlan`,
/// used only inside the runtime actor), so nothing here locks.
class SupervisorInstance<State, Environment, Action: Sendable> {
    /// The channels this part declared at its last update, in order.
    // Unchecked exclusivity: read and written on the store's executor only, by this part and its
    // parent, each access a whole read, a whole write or one element's write that calls nothing
    // (a part never reads its own `keep` while writing it).
    @exclusivity(unchecked) var keep: Keep<Action> = []

    /// Brings `keep` up to date for `state` and says which positions may differ.
    func update(_ state: State, _ environment: Environment) -> SupervisorChange {
        preconditionFailure("Internal inconsistency: SupervisorInstance.update is abstract")
    }

    /// Called on the root once the engine reconciled `keep`: a part that rebuilds everything at
    /// every update needs no cache, and dropping it frees the declarations between cycles.
    func reconciled() {}
}

/// `supervise { state in … }`: re-evaluated at every update (it may read anything of the state),
/// and every position is reported, as the engine diffed before memoisation existed.
final class OpaqueSupervisor<State, Environment, Action: Sendable>: SupervisorInstance<State, Environment, Action> {
    let supervise: @Sendable (State, Environment) -> Keep<Action>

    /// How many channels the last update declared (`keep` may have been dropped since).
    private var lastCount = 0

    init(_ supervise: @escaping @Sendable (State, Environment) -> Keep<Action>) { self.supervise = supervise }

    override func update(_ state: State, _ environment: Environment) -> SupervisorChange {
        keep = supervise(state, environment)
        defer { lastCount = keep.count }
        return .rebuilt(before: lastCount, after: keep.count)
    }

    override func reconciled() { keep = [] }
}

/// `supervise(on: input) { input in … }`: re-evaluated only when the input differs from the
/// last one (`==`); an equal input keeps the cached channels and reports `unchanged`.
final class MemoisedSupervisor<State, Environment, Action: Sendable, Input: Equatable>: SupervisorInstance<State, Environment, Action> {
    let input: @Sendable (State) -> Input
    let supervise: @Sendable (Input) -> Supervision<Action, Environment>
    // Unchecked exclusivity: read and written only in `update`, on the store's executor, by
    // whole reads and writes that call nothing.
    @exclusivity(unchecked) private var lastInput: Input?

    init(input: @escaping @Sendable (State) -> Input, supervise: @escaping @Sendable (Input) -> Supervision<Action, Environment>) {
        self.input = input
        self.supervise = supervise
    }

    override func update(_ state: State, _ environment: Environment) -> SupervisorChange {
        let current = input(state)
        if let lastInput, lastInput == current { return .unchanged }
        lastInput = current
        let before = keep.count
        keep = supervise(current).run(environment)
        return .rebuilt(before: before, after: keep.count)
    }
}

/// `memoisingSupervise(on:)`: the inner parts are consulted only when the input changed; while
/// it compares equal the whole subtree is skipped (its own memos are not even asked).
final class GuardedSupervisor<State, Environment, Action: Sendable, Input: Equatable>: SupervisorInstance<State, Environment, Action> {
    let input: @Sendable (State) -> Input
    let inner: SupervisorInstance<State, Environment, Action>
    private var lastInput: Input?

    init(input: @escaping @Sendable (State) -> Input, inner: SupervisorInstance<State, Environment, Action>) {
        self.input = input
        self.inner = inner
    }

    /// The inner part's channels themselves: a copy here would share the inner array, and the
    /// inner part's next in-place change would then copy all of it.
    override var keep: Keep<Action> {
        get { inner.keep }
        set { inner.keep = newValue }
    }

    override func update(_ state: State, _ environment: Environment) -> SupervisorChange {
        let current = input(state)
        if let lastInput, lastInput == current { return .unchanged }
        lastInput = current
        return inner.update(state, environment)
    }
}

/// Parts side by side (`combine`): their channels concatenated, changes offset to their place.
final class ConcatenatedSupervisor<State, Environment, Action: Sendable>: SupervisorInstance<State, Environment, Action> {
    let parts: [SupervisorInstance<State, Environment, Action>]
    /// Where each part's channels start in `keep`.
    private var offsets: [Int]

    init(_ parts: [SupervisorInstance<State, Environment, Action>]) {
        self.parts = parts
        self.offsets = Array(repeating: 0, count: parts.count)
    }

    override func update(_ state: State, _ environment: Environment) -> SupervisorChange {
        var collector = SupervisorChangeCollector()
        var changes: [SupervisorChange] = []
        changes.reserveCapacity(parts.count)
        for (index, part) in parts.enumerated() {
            let change = part.update(state, environment)
            changes.append(change)
            collector.add(change, at: offsets[index])
        }
        let change = collector.change
        switch change {
        case .unchanged:
            break
        case .ranges:
            // Same lengths everywhere: copy only what changed, in place.
            for (index, partChange) in changes.enumerated() {
                guard case .ranges(let ranges) = partChange else { continue }
                let offset = offsets[index]
                let source = parts[index].keep
                for range in ranges {
                    for position in range { keep[offset + position] = source[position] }
                }
            }
        case .resized:
            var rebuilt: Keep<Action> = []
            rebuilt.reserveCapacity(parts.reduce(0) { $0 + $1.keep.count })
            for (index, part) in parts.enumerated() {
                offsets[index] = rebuilt.count
                rebuilt.append(contentsOf: part.keep)
            }
            keep = rebuilt
        }
        return change
    }
}

/// A part whose channels are re-typed and/or whose state or environment is projected (the lifts).
///
/// `transform` maps one channel of the inner part (nil: the identity, no copy of the channels).
/// `state` returns nil while the part is absent (`liftState` over an optional): then it
/// declares nothing and its inner part is not consulted.
final class LiftedSupervisor<State, Environment, Action: Sendable, InnerState, InnerEnvironment, InnerAction: Sendable>:
    SupervisorInstance<State, Environment, Action>
{
    let inner: SupervisorInstance<InnerState, InnerEnvironment, InnerAction>
    let state: @Sendable (State) -> InnerState?
    let environment: @Sendable (Environment) -> InnerEnvironment
    let transform: @Sendable (Channel<InnerAction>) -> Channel<Action>
    /// Whether `keep` mirrors the inner part (false while the part is absent).
    private var present = false

    init(
        inner: SupervisorInstance<InnerState, InnerEnvironment, InnerAction>,
        state: @escaping @Sendable (State) -> InnerState?,
        environment: @escaping @Sendable (Environment) -> InnerEnvironment,
        transform: @escaping @Sendable (Channel<InnerAction>) -> Channel<Action>
    ) {
        self.inner = inner
        self.state = state
        self.environment = environment
        self.transform = transform
    }

    override func update(_ global: State, _ globalEnvironment: Environment) -> SupervisorChange {
        guard let local = state(global) else {
            guard present else { return .unchanged }
            present = false
            let before = keep.count
            keep = []
            return .rebuilt(before: before, after: 0)
        }
        let change = inner.update(local, environment(globalEnvironment))
        if !present {
            // Back after an absence: the inner memo may well say "unchanged", but this part
            // declared nothing meanwhile.
            present = true
            let before = keep.count
            keep = inner.keep.map(transform)
            return .rebuilt(before: before, after: keep.count)
        }
        switch change {
        case .unchanged:
            break
        case .ranges(let ranges):
            for range in ranges {
                for position in range { keep[position] = transform(inner.keep[position]) }
            }
        case .resized:
            keep = inner.keep.map(transform)
        }
        return change
    }
}
