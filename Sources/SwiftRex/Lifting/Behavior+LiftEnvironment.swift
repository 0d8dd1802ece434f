extension Behavior {
    /// Lifts a behavior needing a local environment into one over a global environment.
    public func liftEnvironment<GlobalEnvironment>(
        _ transform: @escaping @Sendable (GlobalEnvironment) -> Environment
    ) -> Behavior<Action, State, GlobalEnvironment> {
        typealias Lifted = Behavior<Action, State, GlobalEnvironment>
        var liftedProducer: Lifted.Produce?
        if let produce = producer {
            liftedProducer = { action, context in
                produce(action, ProduceContext(state: context.state, environment: transform(context.environment)))
            }
        }
        let liftedSupervisor = supervisor?.lifted(
            state: { (state: State) -> State? in state }, environment: transform, transform: { (channel: Channel<Action>) in channel }
        )
        return Lifted(reducer: reducer, producer: liftedProducer, supervisor: liftedSupervisor)
    }
}

extension Behavior where Environment == Void {
    /// A behavior that needs no environment, usable where any environment is available.
    public func liftEnvironment<GlobalEnvironment>() -> Behavior<Action, State, GlobalEnvironment> {
        liftEnvironment { (_: GlobalEnvironment) in () }
    }
}

extension Middleware {
    /// Lifts a middleware needing a local environment into one over a global environment.
    public func liftEnvironment<GlobalEnvironment>(
        _ transform: @escaping @Sendable (GlobalEnvironment) -> Environment
    ) -> Middleware<Action, State, GlobalEnvironment> {
        Middleware<Action, State, GlobalEnvironment>(behavior: behavior.liftEnvironment(transform))
    }
}
