/// A feature's logic: how actions mutate state (`reduce`), which one-shot effects they produce
/// (`produce`), and which long-lived channels each state keeps alive (`supervise`).
///
/// Behaviors compose: `combine` runs both sides' reducers in order (left first, on the same
/// state), both sides' produces (their effects run concurrently), and both sides' supervisions
/// (their channels concatenate). Every builder exists as a static constructor and as a fluent
/// method that combines with the receiver.
///
/// ```swift
/// let timer = Behavior<TimerAction, TimerState, Void>
///     .reduce { action, state in … }
///     .supervise { state in Supervision { _ in … } }
/// ```
public struct Behavior<Action: Sendable, State, Environment>: Sendable {
    @usableFromInline typealias Reduce = @Sendable (Action, inout State) -> Void
    @usableFromInline typealias Produce = @Sendable (Action, ProduceContext<State, Environment>) -> Effect<Action>
    typealias Supervise = SupervisorPlan<State, Environment, Action>

    // Usable from inlinable code: a store's drain loop, specialised in the client module, calls
    // them per action.
    @usableFromInline let reducer: Reduce?
    @usableFromInline let producer: Produce?
    let supervisor: Supervise?

    init(reducer: Reduce?, producer: Produce?, supervisor: Supervise?) {
        self.reducer = reducer
        self.producer = producer
        self.supervisor = supervisor
    }

    /// Does nothing: the monoid identity.
    public static var identity: Behavior { Behavior(reducer: nil, producer: nil, supervisor: nil) }

    /// Whether this behavior declares any channels (only then does the store reconcile).
    public var supervises: Bool { supervisor != nil }

    /// Whether actions can mutate state (only then do they trigger a reconcile).
    public var reduces: Bool { reducer != nil }

    /// Mutates state in place for each action.
    public static func reduce(_ reduce: @escaping @Sendable (Action, inout State) -> Void) -> Behavior {
        Behavior(reducer: reduce, producer: nil, supervisor: nil)
    }

    /// Produces one-shot effects for each action, reading the state after all reducers ran.
    public static func produce(
        _ produce: @escaping @Sendable (Action, ProduceContext<State, Environment>) -> Effect<Action>
    ) -> Behavior {
        Behavior(reducer: nil, producer: produce, supervisor: nil)
    }

    /// Declares the channels each state keeps alive.
    public static func supervise(
        _ supervise: @escaping @Sendable (State) -> Supervision<Action, Environment>
    ) -> Behavior {
        Behavior(reducer: nil, producer: nil, supervisor: .opaque { state, env in supervise(state).run(env) })
    }

    /// Runs `lhs` then `rhs`: reducers in order, effects concurrently, channels concatenated.
    public static func combine(_ lhs: Behavior, _ rhs: Behavior) -> Behavior {
        Behavior(
            reducer: Self.chain(lhs.reducer, rhs.reducer),
            producer: Self.merge(lhs.producer, rhs.producer),
            supervisor: Supervise.concatenate(lhs.supervisor, rhs.supervisor)
        )
    }

    /// Folds `behaviors` with `combine`.
    public static func combine(_ behaviors: [Behavior]) -> Behavior {
        behaviors.reduce(.identity, combine)
    }

    /// This behavior followed by `other`.
    public func combined(with other: Behavior) -> Behavior { .combine(self, other) }

    /// This behavior plus a reducer.
    public func reduce(_ reduce: @escaping @Sendable (Action, inout State) -> Void) -> Behavior {
        .combine(self, .reduce(reduce))
    }

    /// This behavior plus a producer.
    public func produce(
        _ produce: @escaping @Sendable (Action, ProduceContext<State, Environment>) -> Effect<Action>
    ) -> Behavior {
        .combine(self, .produce(produce))
    }

    /// This behavior plus a supervision.
    public func supervise(_ supervise: @escaping @Sendable (State) -> Supervision<Action, Environment>) -> Behavior {
        .combine(self, .supervise(supervise))
    }

    static func chain(_ lhs: Reduce?, _ rhs: Reduce?) -> Reduce? {
        guard let lhs else { return rhs }
        guard let rhs else { return lhs }
        return { action, state in
            lhs(action, &state)
            rhs(action, &state)
        }
    }

    static func merge(_ lhs: Produce?, _ rhs: Produce?) -> Produce? {
        guard let lhs else { return rhs }
        guard let rhs else { return lhs }
        return { action, context in .combine(lhs(action, context), rhs(action, context)) }
    }
}

/// What a `produce` sees: the state after this action's reducers ran, and the environment.
public struct ProduceContext<State, Environment> {
    /// Settable inside the library only: the store reduces each action in place here, so every
    /// `produce` of a batch borrows the state rather than copying it.
    @usableFromInline var storedState: State
    /// The dependencies the store was created with.
    public let environment: Environment

    /// The state after this action's reducers ran.
    @inlinable
    public var state: State {
        _read { yield storedState }
    }

    /// A context over `state` and `environment` (for calling a produce directly, as in a test).
    @inlinable
    public init(state: State, environment: Environment) {
        self.storedState = state
        self.environment = environment
    }
}
