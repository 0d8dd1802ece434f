extension Behavior {
    /// Lifts an element behavior to a collection of `Identifiable` elements, applying each local
    /// action to EVERY element.
    ///
    /// Channels are supervised per element with element-scoped ids, exactly as `liftCollection`
    /// does, so a `liftEach` and a `liftCollection` over the same container keep the same ids
    /// (the engine opens them once).
    public func liftEach<GlobalAction: Sendable, GlobalState, Elements: MutableCollection>(
        action: @escaping @Sendable (GlobalAction) -> Action?,
        embed: @escaping @Sendable (State.ID, Action) -> GlobalAction,
        stateCollection: any WritableKeyPath<GlobalState, Elements> & Sendable
    ) -> Behavior<GlobalAction, GlobalState, Environment>
    where
        State: Identifiable, State.ID: Sendable, Elements.Element == State,
        Elements: SendableMetatype, Elements.Index: SendableMetatype, State: SendableMetatype
    {
        liftEach(action: action, embed: embed, access: .collection(stateCollection))
    }

    /// Lifts an element behavior to the values of a dictionary, applying each local action to
    /// every value.
    public func liftEach<GlobalAction: Sendable, GlobalState, Key: Hashable & Sendable>(
        action: @escaping @Sendable (GlobalAction) -> Action?,
        embed: @escaping @Sendable (Key, Action) -> GlobalAction,
        stateDictionary: any WritableKeyPath<GlobalState, [Key: State]> & Sendable
    ) -> Behavior<GlobalAction, GlobalState, Environment> {
        liftEach(action: action, embed: embed, access: .dictionary(stateDictionary))
    }

    func liftEach<GlobalAction: Sendable, GlobalState, ID>(
        action extract: @escaping @Sendable (GlobalAction) -> Action?,
        embed: @escaping @Sendable (ID, Action) -> GlobalAction,
        access: ElementAccess<GlobalState, ID, State>
    ) -> Behavior<GlobalAction, GlobalState, Environment> {
        typealias Lifted = Behavior<GlobalAction, GlobalState, Environment>
        var liftedReducer: Lifted.Reduce?
        if let reduce = reducer {
            liftedReducer = { global, state in
                guard let action = extract(global) else { return }
                access.modifyAll(&state) { reduce(action, &$0) }
            }
        }
        var liftedProducer: Lifted.Produce?
        if let produce = producer {
            liftedProducer = { global, context in
                guard let action = extract(global) else { return .empty }
                var effects: [Effect<GlobalAction>] = []
                for (id, element) in access.all(context.state) {
                    effects.append(
                        produce(action, ProduceContext(state: element, environment: context.environment))
                            .map { embed(id, $0) }
                            .scoped(toElement: AnyHashableSendable(id))
                    )
                }
                return .combine(effects)
            }
        }
        let liftedSupervisor = supervisor?.elementwise(access: access, embed: embed)
        return Lifted(reducer: liftedReducer, producer: liftedProducer, supervisor: liftedSupervisor)
    }
}
