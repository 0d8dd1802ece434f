/// A pure state transition: `(Action, inout State) -> Void`, composed sequentially.
public struct Reducer<Action: Sendable, State>: Sendable {
    let reduce: @Sendable (Action, inout State) -> Void

    /// A reducer that mutates state in place.
    public static func reduce(_ reduce: @escaping @Sendable (Action, inout State) -> Void) -> Reducer {
        Reducer(reduce: reduce)
    }

    /// Leaves state untouched: the monoid identity.
    public static var identity: Reducer { Reducer { _, _ in } }

    /// Runs `lhs`, then `rhs`, on the same state.
    public static func combine(_ lhs: Reducer, _ rhs: Reducer) -> Reducer {
        Reducer { action, state in
            lhs.reduce(action, &state)
            rhs.reduce(action, &state)
        }
    }

    /// Applies the reducer to `state`.
    public func callAsFunction(_ action: Action, _ state: inout State) { reduce(action, &state) }

    /// The reducer as a behavior with no effects and no channels.
    public func asBehavior<Environment>() -> Behavior<Action, State, Environment> {
        .reduce(reduce)
    }
}

/// Side effects and channels without state mutation: `produce` and `supervise`.
public struct Middleware<Action: Sendable, State, Environment>: Sendable {
    let behavior: Behavior<Action, State, Environment>

    /// Produces effects for each action from the post-reducer state and the environment.
    public static func produce(
        _ produce: @escaping @Sendable (Action, ProduceContext<State, Environment>) -> Effect<Action>
    ) -> Middleware {
        Middleware(behavior: .produce(produce))
    }

    /// Declares the channels each state keeps alive.
    public static func supervise(
        _ supervise: @escaping @Sendable (State) -> Supervision<Action, Environment>
    ) -> Middleware {
        Middleware(behavior: .supervise(supervise))
    }

    /// Does nothing.
    public static var identity: Middleware { Middleware(behavior: .identity) }

    /// Both middlewares: effects concurrently, channels concatenated.
    public static func combine(_ lhs: Middleware, _ rhs: Middleware) -> Middleware {
        Middleware(behavior: .combine(lhs.behavior, rhs.behavior))
    }

    /// This middleware plus a producer.
    public func produce(
        _ produce: @escaping @Sendable (Action, ProduceContext<State, Environment>) -> Effect<Action>
    ) -> Middleware {
        .combine(self, .produce(produce))
    }

    /// This middleware plus a supervision.
    public func supervise(_ supervise: @escaping @Sendable (State) -> Supervision<Action, Environment>) -> Middleware {
        .combine(self, .supervise(supervise))
    }

    /// The middleware as a behavior (it never mutates state).
    public func asBehavior() -> Behavior<Action, State, Environment> { behavior }
}

extension Behavior {
    /// A behavior from a reducer and a middleware: the reducer mutates, then the middleware
    /// produces effects and declares channels.
    public init(reducer: Reducer<Action, State>, middleware: Middleware<Action, State, Environment>) {
        self = .combine(reducer.asBehavior(), middleware.asBehavior())
    }
}
