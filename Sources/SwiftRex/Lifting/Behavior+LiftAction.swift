extension Behavior {
    /// Lifts a behavior over a local action into one over a global action.
    ///
    /// Global actions that `extract` does not map are ignored (no mutation, no effects). Effects
    /// and channel dispatches are re-typed with `embed`; the supervise axis carries over.
    public func liftAction<GlobalAction: Sendable>(
        extract: @escaping @Sendable (GlobalAction) -> Action?,
        embed: @escaping @Sendable (Action) -> GlobalAction
    ) -> Behavior<GlobalAction, State, Environment> {
        typealias Lifted = Behavior<GlobalAction, State, Environment>
        var liftedReducer: Lifted.Reduce?
        if let reduce = reducer {
            liftedReducer = { global, state in
                if let action = extract(global) { reduce(action, &state) }
            }
        }
        var liftedProducer: Lifted.Produce?
        if let produce = producer {
            liftedProducer = { global, context in
                guard let action = extract(global) else { return .empty }
                return produce(action, context).map(embed)
            }
        }
        let liftedSupervisor = supervisor?.lifted(
            state: { (state: State) -> State? in state }, environment: { (env: Environment) in env },
            transform: { (channel: Channel<Action>) in channel.map(embed) }
        )
        return Lifted(reducer: liftedReducer, producer: liftedProducer, supervisor: liftedSupervisor)
    }
}

extension Middleware {
    /// Lifts a middleware over a local action into one over a global action.
    public func liftAction<GlobalAction: Sendable>(
        extract: @escaping @Sendable (GlobalAction) -> Action?,
        embed: @escaping @Sendable (Action) -> GlobalAction
    ) -> Middleware<GlobalAction, State, Environment> {
        Middleware<GlobalAction, State, Environment>(behavior: behavior.liftAction(extract: extract, embed: embed))
    }
}
