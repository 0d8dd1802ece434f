/// A lazy, push-based description of side-effecting work that produces zero or more actions.
///
/// Building an effect starts nothing; only the store subscribes to it. An effect is an ordered
/// list of components, each with its own `EffectScheduling`, so cancelling one id never touches
/// components under another. Effects form a monoid: `combine` concatenates components (they run
/// concurrently) and `empty` is the identity.
///
/// ```swift
/// let all: Effect<AppAction> = mconcat([fetchUsers, fetchSettings])
/// let keyed = Effect.just(.refresh).scheduling(.debounce(id: "refresh", delay: .milliseconds(300)))
/// ```
public struct Effect<Action: Sendable>: Sendable {
    /// Sends one action (with provenance) back to the store.
    public typealias Send = @Sendable (DispatchedAction<Action>) -> Void
    /// Signals that the component is done; call at most once, never after cancellation.
    public typealias Complete = @Sendable () -> Void

    @usableFromInline var components: EffectComponents<Action>

    @usableFromInline init(components: EffectComponents<Action>) {
        self.components = components
    }

    @usableFromInline init(component: EffectComponent<Action>) {
        self.components = EffectComponents(component)
    }

    /// One component that runs `subscribe` under `scheduling`.
    ///
    /// `subscribe` receives `send` and `complete` and returns a token the store cancels when the
    /// run is replaced, cancelled by id, or the store is released.
    public init(
        subscribe: @escaping @Sendable (_ send: @escaping Send, _ complete: @escaping Complete) -> SubscriptionToken,
        scheduling: EffectScheduling = .immediately
    ) {
        self.components = EffectComponents(EffectComponent(kind: .run(subscribe), scheduling: scheduling))
    }

    /// An effect that does nothing.
    @inlinable public static var empty: Effect { Effect(components: EffectComponents()) }

    /// The monoid identity (same as `empty`).
    @inlinable public static var identity: Effect { empty }

    /// Whether the effect has no components.
    @inlinable public var isEmpty: Bool { components.isEmpty }

    /// How many independently scheduled components the effect holds.
    public var componentCount: Int { components.count }

    /// Dispatches `action`, then completes.
    public static func just(
        _ action: Action,
        scheduling: EffectScheduling = .immediately,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) -> Effect {
        just(DispatchedAction(action, source: ActionSource(file: file, function: function, line: line)), scheduling: scheduling)
    }

    /// Dispatches an action keeping its original provenance, then completes.
    public static func just(_ dispatched: DispatchedAction<Action>, scheduling: EffectScheduling = .immediately) -> Effect {
        Effect(
            subscribe: { send, complete in
                send(dispatched)
                complete()
                return .empty
            }, scheduling: scheduling)
    }

    /// Dispatches `actions` in order, then completes (an empty list just completes).
    public static func sequence(
        _ actions: [Action],
        scheduling: EffectScheduling = .immediately,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) -> Effect {
        let source = ActionSource(file: file, function: function, line: line)
        return sequence(actions.map { DispatchedAction($0, source: source) }, scheduling: scheduling)
    }

    /// Dispatches actions keeping each one's provenance, then completes.
    public static func sequence(_ actions: [DispatchedAction<Action>], scheduling: EffectScheduling = .immediately) -> Effect {
        Effect(
            subscribe: { send, complete in
                for action in actions { send(action) }
                complete()
                return .empty
            }, scheduling: scheduling)
    }

    /// Runs both effects concurrently: `lhs`'s components followed by `rhs`'s.
    @inlinable
    public static func combine(_ lhs: Effect, _ rhs: Effect) -> Effect {
        if lhs.components.isEmpty { return rhs }
        if rhs.components.isEmpty { return lhs }
        return Effect(components: lhs.components + rhs.components)
    }

    /// This effect and `other`, run concurrently.
    public func combined(with other: Effect) -> Effect { .combine(self, other) }

    /// Runs all effects concurrently (a left fold of `combine`).
    public static func combine(_ effects: [Effect]) -> Effect {
        Effect(components: EffectComponents(effects.flatMap(\.components)))
    }

    /// A copy whose every component runs under `scheduling`.
    ///
    /// Channel components (`open`, `channel`, `broadcast`) keep what they are and take the new id.
    public func scheduling(_ scheduling: EffectScheduling) -> Effect {
        Effect(
            components: components.mapComponents { component in
                var copy = component
                copy.scheduling = scheduling
                if case .run = component.kind {
                } else if scheduling.id == nil {
                    // A channel or broadcast is addressed by its id: keep it.
                    copy.scheduling.id = component.scheduling.id
                }
                return copy
            })
    }

    /// The same work, dispatching `transform(action)`; provenance and scheduling are kept.
    public func map<Other: Sendable>(_ transform: @escaping @Sendable (Action) -> Other) -> Effect<Other> {
        Effect<Other>(components: components.mapComponents { $0.map(transform) })
    }

    /// Every id-carrying component's id scoped to one element of a lifted collection.
    func scoped(toElement element: AnyHashableSendable) -> Effect {
        Effect(
            components: components.mapComponents { component in
                guard let id = component.scheduling.id else { return component }
                var copy = component
                copy.scheduling.id = AnyHashableSendable(ElementScopedID(element: element, inner: id))
                if case .open(let channel) = component.kind {
                    copy.kind = .open(channel.scoped(toElement: element))
                }
                return copy
            })
    }
}

/// Folds effects with `combine`; the empty list gives `Effect.empty`.
public func mconcat<Action: Sendable>(_ effects: [Effect<Action>]) -> Effect<Action> {
    Effect.combine(effects)
}

/// One independently scheduled unit of an effect.
@usableFromInline
struct EffectComponent<Action: Sendable>: Sendable {
    @usableFromInline
    enum Kind: Sendable {
        /// One-shot work.
        case run(@Sendable (_ send: @escaping Effect<Action>.Send, _ complete: @escaping Effect<Action>.Complete) -> SubscriptionToken)
        /// Open a channel under the component's id, or deliver its value if one is live.
        case open(Channel<Action>)
        /// Deliver a value into the live channel under the component's id; dropped if none.
        case broadcast(any Sendable)
    }

    @usableFromInline var kind: Kind
    @usableFromInline var scheduling: EffectScheduling

    @usableFromInline init(kind: Kind, scheduling: EffectScheduling) {
        self.kind = kind
        self.scheduling = scheduling
    }

    func map<Other: Sendable>(_ transform: @escaping @Sendable (Action) -> Other) -> EffectComponent<Other> {
        switch kind {
        case .run(let subscribe):
            return EffectComponent<Other>(
                kind: .run { send, complete in
                    subscribe({ send($0.map(transform)) }, complete)
                }, scheduling: scheduling)
        case .open(let channel):
            return EffectComponent<Other>(kind: .open(channel.map(transform)), scheduling: scheduling)
        case .broadcast(let value):
            return EffectComponent<Other>(kind: .broadcast(value), scheduling: scheduling)
        }
    }
}
