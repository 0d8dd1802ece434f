extension Behavior {
    /// Lifts a behavior over a part of the state into one over the whole state.
    ///
    /// Reducers mutate `state[keyPath: keyPath]` in place; produces and supervisions see that part.
    public func liftState<GlobalState>(
        _ keyPath: any WritableKeyPath<GlobalState, State> & Sendable
    ) -> Behavior<Action, GlobalState, Environment> {
        typealias Lifted = Behavior<Action, GlobalState, Environment>
        var liftedReducer: Lifted.Reduce?
        if let reduce = reducer {
            liftedReducer = { action, global in reduce(action, &global[keyPath: keyPath]) }
        }
        var liftedProducer: Lifted.Produce?
        if let produce = producer {
            liftedProducer = { action, context in
                produce(action, ProduceContext(state: context.state[keyPath: keyPath], environment: context.environment))
            }
        }
        let liftedSupervisor = supervisor?.lifted(
            state: { (global: GlobalState) -> State? in global[keyPath: keyPath] }, environment: { (env: Environment) in env },
            transform: { (channel: Channel<Action>) in channel }
        )
        return Lifted(reducer: liftedReducer, producer: liftedProducer, supervisor: liftedSupervisor)
    }

    /// Lifts a behavior over an optional part of the state.
    ///
    /// While the part is `nil` the behavior is not consulted at all: no mutation, no effects, and
    /// no channels — so its channels are cancelled when the part goes away (state-driven
    /// navigation).
    public func liftState<GlobalState>(
        _ keyPath: any WritableKeyPath<GlobalState, State?> & Sendable
    ) -> Behavior<Action, GlobalState, Environment> {
        typealias Lifted = Behavior<Action, GlobalState, Environment>
        var liftedReducer: Lifted.Reduce?
        if let reduce = reducer {
            liftedReducer = { action, global in
                guard global[keyPath: keyPath] != nil else { return }
                reduce(action, &global[keyPath: keyPath]!)
            }
        }
        var liftedProducer: Lifted.Produce?
        if let produce = producer {
            liftedProducer = { action, context in
                guard let local = context.state[keyPath: keyPath] else { return .empty }
                return produce(action, ProduceContext(state: local, environment: context.environment))
            }
        }
        let liftedSupervisor = supervisor?.lifted(
            state: { (global: GlobalState) -> State? in global[keyPath: keyPath] }, environment: { (env: Environment) in env },
            transform: { (channel: Channel<Action>) in channel }
        )
        return Lifted(reducer: liftedReducer, producer: liftedProducer, supervisor: liftedSupervisor)
    }
}

extension Middleware {
    /// Lifts a middleware over a part of the state into one over the whole state.
    public func liftState<GlobalState>(
        _ keyPath: any WritableKeyPath<GlobalState, State> & Sendable
    ) -> Middleware<Action, GlobalState, Environment> {
        Middleware<Action, GlobalState, Environment>(behavior: behavior.liftState(keyPath))
    }
}
