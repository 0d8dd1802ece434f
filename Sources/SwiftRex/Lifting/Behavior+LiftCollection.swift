extension Behavior {
    /// Lifts an element behavior to a collection of `Identifiable` elements, routing each action
    /// to ONE element.
    ///
    /// `action` picks the element id and local action out of a global action (nil: ignored);
    /// `embed` builds the global action for an element's effects and channels. Every element
    /// keeps its own channels: their ids (and the ids of its keyed effects, broadcasts and
    /// cancels) are scoped to the element, so element A's `"socket"` never meets element B's.
    /// An action for an absent id mutates nothing and produces nothing.
    public func liftCollection<GlobalAction: Sendable, GlobalState, Elements: MutableCollection>(
        action: @escaping @Sendable (GlobalAction) -> (id: State.ID, action: Action)?,
        embed: @escaping @Sendable (State.ID, Action) -> GlobalAction,
        stateCollection: any WritableKeyPath<GlobalState, Elements> & Sendable
    ) -> Behavior<GlobalAction, GlobalState, Environment>
    where
        State: Identifiable, State.ID: Sendable, Elements.Element == State,
        Elements: SendableMetatype, Elements.Index: SendableMetatype, State: SendableMetatype
    {
        liftCollection(action: action, embed: embed, access: .collection(stateCollection))
    }

    /// `liftCollection` over a random-access collection whose changes the reducer records in
    /// `changes` (see `ElementChanges` for the contract): a supervise update then re-evaluates
    /// only the elements recorded since the last one, so a churn cycle costs O(changes) and a
    /// batch that recorded nothing costs one comparison, however many elements there are.
    public func liftCollection<GlobalAction: Sendable, GlobalState, Elements: MutableCollection & RandomAccessCollection>(
        action: @escaping @Sendable (GlobalAction) -> (id: State.ID, action: Action)?,
        embed: @escaping @Sendable (State.ID, Action) -> GlobalAction,
        stateCollection: any WritableKeyPath<GlobalState, Elements> & Sendable,
        changes: any KeyPath<GlobalState, ElementChanges<State.ID>> & Sendable
    ) -> Behavior<GlobalAction, GlobalState, Environment>
    where
        State: Identifiable, State.ID: Sendable, Elements.Element == State,
        Elements: SendableMetatype, Elements.Index: SendableMetatype, State: SendableMetatype
    {
        liftCollection(action: action, embed: embed, access: .randomAccess(stateCollection), changes: { $0[keyPath: changes] })
    }

    /// Lifts an element behavior to the values of a dictionary, routing each action to ONE value.
    public func liftCollection<GlobalAction: Sendable, GlobalState, Key: Hashable & Sendable>(
        action: @escaping @Sendable (GlobalAction) -> (id: Key, action: Action)?,
        embed: @escaping @Sendable (Key, Action) -> GlobalAction,
        stateDictionary: any WritableKeyPath<GlobalState, [Key: State]> & Sendable
    ) -> Behavior<GlobalAction, GlobalState, Environment> {
        liftCollection(action: action, embed: embed, access: .dictionary(stateDictionary))
    }

    /// `liftCollection` over a dictionary whose changes the reducer records in `changes` (every
    /// key added, removed, or changed in what its supervise reads; see `ElementChanges`): each
    /// key keeps a stable slot of channel positions, so a supervise update re-evaluates and the
    /// engine diffs only the keys recorded since the last one — adding or removing k of n keys
    /// costs O(k), not O(n), and a batch that recorded nothing costs one comparison.
    public func liftCollection<GlobalAction: Sendable, GlobalState, Key: Hashable & Sendable>(
        action: @escaping @Sendable (GlobalAction) -> (id: Key, action: Action)?,
        embed: @escaping @Sendable (Key, Action) -> GlobalAction,
        stateDictionary: any WritableKeyPath<GlobalState, [Key: State]> & Sendable,
        changes: any KeyPath<GlobalState, some ElementChangeLog<Key>> & Sendable
    ) -> Behavior<GlobalAction, GlobalState, Environment> {
        let lifted = liftCollection(action: action, embed: embed, access: .dictionary(stateDictionary))
        let keyed = supervisor?.keyed(
            access: .dictionary(stateDictionary), embed: embed,
            revision: { $0[keyPath: changes].revision }, ids: { $0[keyPath: changes].ids(after: $1) }
        )
        return Behavior<GlobalAction, GlobalState, Environment>(reducer: lifted.reducer, producer: lifted.producer, supervisor: keyed)
    }

    func liftCollection<GlobalAction: Sendable, GlobalState, ID>(
        action extract: @escaping @Sendable (GlobalAction) -> (id: ID, action: Action)?,
        embed: @escaping @Sendable (ID, Action) -> GlobalAction,
        access: ElementAccess<GlobalState, ID, State>,
        changes: (@Sendable (GlobalState) -> ElementChanges<ID>)? = nil
    ) -> Behavior<GlobalAction, GlobalState, Environment> {
        typealias Lifted = Behavior<GlobalAction, GlobalState, Environment>
        var liftedReducer: Lifted.Reduce?
        if let reduce = reducer {
            liftedReducer = { global, state in
                guard let (id, action) = extract(global) else { return }
                access.modify(&state, id) { reduce(action, &$0) }
            }
        }
        var liftedProducer: Lifted.Produce?
        if let produce = producer {
            liftedProducer = { global, context in
                guard let (id, action) = extract(global), let element = access.get(context.state, id) else { return .empty }
                return produce(action, ProduceContext(state: element, environment: context.environment))
                    .map { embed(id, $0) }
                    .scoped(toElement: AnyHashableSendable(id))
            }
        }
        let liftedSupervisor = supervisor?.elementwise(access: access, embed: embed, changes: changes)
        return Lifted(reducer: liftedReducer, producer: liftedProducer, supervisor: liftedSupervisor)
    }
}
