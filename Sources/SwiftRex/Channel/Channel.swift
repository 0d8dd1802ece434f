/// A long-lived, keyed resource that the engine keeps alive while the state implies it.
///
/// A channel is declared, not started: a `supervise` returns the channels the current state
/// needs, and the store's engine diffs that set against what runs — opening new ids, recreating
/// ephemeral ones whose reset key changed, piping changed `.onChange` values, and cancelling ids
/// that left the set. The body runs once per instance on the store's executor; `dispatch` sends
/// actions back to the store from any thread (they are processed later, never inside the reconcile
/// that opened the channel, and dropped once the instance is torn down).
///
/// ```swift
/// Channel(id: "ticker", lifetime: .ephemeral(resetKey: state.interval)) { dispatch in
///     let task = Task { while !Task.isCancelled { try? await clock.sleep(for: interval); dispatch(.tick) } }
///     return .cancelOnly { task.cancel() }
/// }
/// ```
public struct Channel<Action: Sendable>: Sendable {
    /// How long the engine keeps a channel alive, and what makes it recreate.
    public typealias Lifetime = ChannelLifetime

    /// One allocation holds the declaration: a supervise builds thousands of channels per
    /// cycle and the engine copies them around, and a copy is then a single retain.
    let storage: ChannelStorage<Action>

    /// The registry key, shared with keyed effects.
    public var id: AnyHashableSendable { storage.id }
    public var lifetime: ChannelLifetime { storage.lifetime }
    public var delivery: ChannelDelivery { storage.delivery }
    /// Where the channel was declared; actions its body dispatches carry this source.
    public var source: ActionSource { storage.source }
    var payload: ChannelPayload { storage.payload }
    var opener: ChannelOpener<Action> { storage.opener }

    /// Declares a channel.
    ///
    /// - Parameters:
    ///   - id: The registry key (any `Hashable & Sendable`; type-aware).
    ///   - lifetime: `.permanent` (default) or `.ephemeral(resetKey:settle:)`.
    ///   - broadcasting: `.nothing` (default) or `.onChange(value)` to deliver a state value.
    ///   - delivery: how values into the live channel are paced.
    ///   - body: opens the resource; receives `dispatch` and returns the handler.
    public init<Value: Hashable & Sendable>(
        id: some Hashable & Sendable,
        lifetime: ChannelLifetime = .permanent,
        broadcasting: Broadcasting<Value> = .nothing,
        delivery: ChannelDelivery = .immediate,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line,
        _ body: @escaping @Sendable (_ dispatch: @escaping @Sendable (Action) -> Void) -> ChannelHandler<Value>
    ) {
        let source = ActionSource(file: file, function: function, line: line)
        let payload: ChannelPayload
        switch broadcasting {
        case .nothing: payload = .none
        case .onChange(let value): payload = .onChange(AnyHashableSendable(value))
        }
        self.init(
            id: AnyHashableSendable(id),
            lifetime: lifetime,
            delivery: Self.sanitized(delivery),
            source: source,
            payload: payload,
            opener: ChannelOpener { send, _ in
                ErasedChannelHandler(body { action in send(DispatchedAction(action, source: source)) })
            }
        )
    }

    /// Declares a channel fed only by `Effect.broadcast` (its value type need not be hashable).
    public init<Value: Sendable>(
        id: some Hashable & Sendable,
        lifetime: ChannelLifetime = .permanent,
        delivery: ChannelDelivery = .immediate,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line,
        receiving body: @escaping @Sendable (_ dispatch: @escaping @Sendable (Action) -> Void) -> ChannelHandler<Value>
    ) {
        let source = ActionSource(file: file, function: function, line: line)
        self.init(
            id: AnyHashableSendable(id),
            lifetime: lifetime,
            delivery: Self.sanitized(delivery),
            source: source,
            payload: .none,
            opener: ChannelOpener { send, _ in
                ErasedChannelHandler(body { action in send(DispatchedAction(action, source: source)) })
            }
        )
    }

    init(
        id: AnyHashableSendable,
        lifetime: ChannelLifetime,
        delivery: ChannelDelivery,
        source: ActionSource,
        payload: ChannelPayload,
        opener: ChannelOpener<Action>
    ) {
        storage = ChannelStorage(
            id: id, lifetime: lifetime, delivery: delivery, source: source, payload: payload, opener: opener
        )
    }

    /// The same channel re-typed to dispatch `transform(action)`.
    public func map<Other: Sendable>(_ transform: @escaping @Sendable (Action) -> Other) -> Channel<Other> {
        Channel<Other>(
            id: id, lifetime: lifetime, delivery: delivery, source: source, payload: payload,
            opener: opener.map(transform)
        )
    }

    /// The same channel under an id scoped to one collection element, so two elements' channels
    /// with the same inner id never collide.
    func scoped(toElement element: AnyHashableSendable) -> Channel {
        Channel(
            id: AnyHashableSendable(ElementScopedID(element: element, inner: id)),
            lifetime: lifetime, delivery: delivery, source: source, payload: payload, opener: opener
        )
    }

    /// Negative pacing durations count as zero.
    static func sanitized(_ delivery: ChannelDelivery) -> ChannelDelivery {
        switch delivery {
        case .immediate: .immediate
        case .throttle(let interval, let latest): .throttle(interval.clampedToZero, latest: latest)
        case .debounce(let quiet): .debounce(quiet.clampedToZero)
        }
    }
}

/// The immutable declaration behind a `Channel` value.
final class ChannelStorage<Action: Sendable>: Sendable {
    let id: AnyHashableSendable
    let lifetime: ChannelLifetime
    let delivery: ChannelDelivery
    let source: ActionSource
    let payload: ChannelPayload
    let opener: ChannelOpener<Action>

    init(
        id: AnyHashableSendable, lifetime: ChannelLifetime, delivery: ChannelDelivery, source: ActionSource,
        payload: ChannelPayload, opener: ChannelOpener<Action>
    ) {
        self.id = id
        self.lifetime = lifetime
        self.delivery = delivery
        self.source = source
        self.payload = payload
        self.opener = opener
    }
}

/// What a channel delivers into its handler.
enum ChannelPayload: Sendable {
    /// `.nothing`: opens silently.
    case none
    /// `.onChange(value)`: delivered on open and when it differs from the last reconciled value.
    case onChange(AnyHashableSendable)
    /// A pipeable effect's value (`Effect.channel(value:…)`): delivered on open, then piped.
    case value(any Sendable)

    var broadcastIdentity: AnyHashableSendable? {
        if case .onChange(let identity) = self { return identity }
        return nil
    }

    var deliverable: (any Sendable)? {
        switch self {
        case .none: nil
        case .onChange(let identity): identity.base
        case .value(let value): value
        }
    }

    var name: String {
        switch self {
        case .none: "nothing"
        case .onChange: "onChange"
        case .value: "value"
        }
    }
}

/// Opens one instance of a channel: runs the body with the engine's send and complete hooks.
struct ChannelOpener<Action: Sendable>: Sendable {
    typealias Send = @Sendable (DispatchedAction<Action>) -> Void
    let open: @Sendable (_ send: @escaping Send, _ complete: @escaping @Sendable () -> Void) -> ErasedChannelHandler

    init(_ open: @escaping @Sendable (_ send: @escaping Send, _ complete: @escaping @Sendable () -> Void) -> ErasedChannelHandler) {
        self.open = open
    }

    func map<Other: Sendable>(_ transform: @escaping @Sendable (Action) -> Other) -> ChannelOpener<Other> {
        let open = self.open
        return ChannelOpener<Other> { send, complete in
            open({ dispatched in send(dispatched.map(transform)) }, complete)
        }
    }
}

/// The id of a channel or effect that belongs to one element of a lifted collection.
///
/// Internal on purpose: application code cannot name another element's channel.
struct ElementScopedID: Hashable, Sendable, CustomStringConvertible {
    let element: AnyHashableSendable
    let inner: AnyHashableSendable

    var description: String { "\(inner)[\(element)]" }
}
