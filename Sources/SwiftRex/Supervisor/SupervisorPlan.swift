/// A behavior's supervise as a recipe: its parts (one per `supervise` combined in), each able
/// to make a fresh `SupervisorInstance` for a store. Immutable and `Sendable`, like the rest of a
/// behavior; the memo caches live in the instances, one set per store.
///
/// The lifts distribute over the parts (lifting a concatenation lifts each part), except the
/// collection lifts, which need one instance of the whole element plan per element.
struct SupervisorPlan<State, Environment, Action: Sendable>: Sendable {
    typealias Make = @Sendable () -> SupervisorInstance<State, Environment, Action>

    let parts: [Make]

    init(parts: [Make]) { self.parts = parts }

    init(_ make: @escaping Make) { self.parts = [make] }

    /// A new instance for one store: one part, or the parts concatenated.
    func makeInstance() -> SupervisorInstance<State, Environment, Action> {
        if parts.count == 1 { return parts[0]() }
        return ConcatenatedSupervisor(parts.map { $0() })
    }

    /// An opaque supervise: re-evaluated at every update.
    static func opaque(_ supervise: @escaping @Sendable (State, Environment) -> Keep<Action>) -> SupervisorPlan {
        SupervisorPlan { OpaqueSupervisor(supervise) }
    }

    static func concatenate(_ lhs: SupervisorPlan?, _ rhs: SupervisorPlan?) -> SupervisorPlan? {
        guard let lhs else { return rhs }
        guard let rhs else { return lhs }
        return SupervisorPlan(parts: lhs.parts + rhs.parts)
    }

    /// Every part seen through `state` (nil: absent, nothing declared), `environment` and
    /// `transform` (per channel).
    func lifted<GlobalState, GlobalEnvironment, GlobalAction: Sendable>(
        state: @escaping @Sendable (GlobalState) -> State?,
        environment: @escaping @Sendable (GlobalEnvironment) -> Environment,
        transform: @escaping @Sendable (Channel<Action>) -> Channel<GlobalAction>
    ) -> SupervisorPlan<GlobalState, GlobalEnvironment, GlobalAction> {
        SupervisorPlan<GlobalState, GlobalEnvironment, GlobalAction>(
            parts: parts.map { make in
                { LiftedSupervisor(inner: make(), state: state, environment: environment, transform: transform) }
            })
    }

    /// The collection lifts: one instance of this whole plan per element.
    func elementwise<GlobalState, ID: Hashable & Sendable, GlobalAction: Sendable>(
        access: ElementAccess<GlobalState, ID, State>,
        embed: @escaping @Sendable (ID, Action) -> GlobalAction,
        changes: (@Sendable (GlobalState) -> ElementChanges<ID>)? = nil
    ) -> SupervisorPlan<GlobalState, Environment, GlobalAction> {
        let plan = self
        return SupervisorPlan<GlobalState, Environment, GlobalAction> {
            ElementSupervisor(access: access, embed: embed, changes: changes, makePart: { plan.makeInstance() })
        }
    }

    /// The keyed lift: one instance of this whole plan per key, in a stable slot.
    func keyed<GlobalState, ID: Hashable & Sendable, GlobalAction: Sendable>(
        access: ElementAccess<GlobalState, ID, State>,
        embed: @escaping @Sendable (ID, Action) -> GlobalAction,
        revision: @escaping @Sendable (GlobalState) -> UInt64,
        ids: @escaping @Sendable (GlobalState, UInt64) -> ArraySlice<ID>?
    ) -> SupervisorPlan<GlobalState, Environment, GlobalAction> {
        let plan = self
        return SupervisorPlan<GlobalState, Environment, GlobalAction> {
            KeyedElementSupervisor(access: access, embed: embed, revision: revision, ids: ids, makePart: { plan.makeInstance() })
        }
    }

    /// All parts re-evaluated only when `input` changed.
    func guarded<Input: Equatable & Sendable>(by input: @escaping @Sendable (State) -> Input) -> SupervisorPlan {
        let plan = self
        return SupervisorPlan { GuardedSupervisor(input: input, inner: plan.makeInstance()) }
    }
}
