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

    /// One allocation holds the declaration and its body: a supervise builds thousands of
    /// channels per cycle and the engine copies them around, and a copy is then a single retain.
    @usableFromInline let storage: ChannelStorage<Action>

    /// The registry key, shared with keyed effects.
    public var id: AnyHashableSendable { storage.id }
    /// When the engine recreates the channel: never (`permanent`) or on a reset key change.
    public var lifetime: ChannelLifetime { storage.lifetime }
    /// How values sent into a live instance are paced.
    public var delivery: ChannelDelivery { storage.delivery }
    /// Where the channel was declared; actions its body dispatches carry this source.
    public var source: ActionSource { storage.source }
    var payload: ChannelPayload { storage.payload }

    /// Declares a channel.
    ///
    /// - Parameters:
    ///   - id: The registry key (any `Hashable & Sendable`; type-aware).
    ///   - lifetime: `.permanent` (default) or `.ephemeral(resetKey:settle:)`.
    ///   - broadcasting: `.nothing` (default) or `.onChange(value)` to deliver a state value.
    ///   - delivery: how values into the live channel are paced.
    ///   - file: Where the channel is declared (the call site by default); with `function` and
    ///     `line` it becomes ``source``, which every action the body dispatches carries.
    ///   - function: The declaring function.
    ///   - line: The declaring line.
    ///   - body: opens the resource; receives `dispatch` and returns the handler.
    @inlinable
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
        let payload: ChannelPayload
        switch broadcasting {
        case .nothing: payload = .none
        case .onChange(let value): payload = .onChange(AnyHashableSendable(value))
        }
        storage = BodyChannelStorage(
            id: AnyHashableSendable(id), lifetime: lifetime, delivery: Self.sanitized(delivery),
            source: ActionSource(file: file, function: function, line: line), payload: payload, body: body
        )
    }

    /// Declares a channel fed only by `Effect.broadcast` (its value type need not be hashable).
    @inlinable
    public init<Value: Sendable>(
        id: some Hashable & Sendable,
        lifetime: ChannelLifetime = .permanent,
        delivery: ChannelDelivery = .immediate,
        file: String = #fileID,
        function: String = #function,
        line: UInt = #line,
        receiving body: @escaping @Sendable (_ dispatch: @escaping @Sendable (Action) -> Void) -> ChannelHandler<Value>
    ) {
        storage = BodyChannelStorage(
            id: AnyHashableSendable(id), lifetime: lifetime, delivery: Self.sanitized(delivery),
            source: ActionSource(file: file, function: function, line: line), payload: .none, body: body
        )
    }

    init(storage: ChannelStorage<Action>) {
        self.storage = storage
    }

    /// The same channel re-typed to dispatch `transform(action)`.
    public func map<Other: Sendable>(_ transform: @escaping @Sendable (Action) -> Other) -> Channel<Other> {
        Channel<Other>(storage: MappedChannelStorage(inner: storage, id: storage.id, transform: transform))
    }

    /// The same channel under an id scoped to one collection element, so two elements' channels
    /// with the same inner id never collide.
    func scoped(toElement element: AnyHashableSendable) -> Channel {
        if isVacant { return self }
        return Channel(storage: MappedChannelStorage(inner: storage, id: Self.scopedID(storage.id, element), transform: { $0 }))
    }

    /// Re-typed with `embed` and scoped to the element `id` (wrapped: `scope`) at once, what the
    /// collection lifts do: one allocation (two with the scoped id's box).
    @inline(__always)  // into the lifts' loops, where the storage's metadata lookup is hoisted
    func lifted<ElementID: Sendable, Other: Sendable>(
        toElement scope: AnyHashableSendable, id: ElementID, embed: @escaping @Sendable (ElementID, Action) -> Other
    ) -> Channel<Other> {
        if isVacant { return Channel<Other>.vacant() }
        return Channel<Other>(
            storage: ElementChannelStorage(inner: storage, id: Self.scopedID(storage.id, scope), element: id, embed: embed))
    }

    /// `lifted(toElement:id:embed:)` for a position that held `previous`: its scoped id is reused
    /// when it is the same (see `scopedID(_:_:reusing:)`).
    @inline(__always)
    func lifted<ElementID: Sendable, Other: Sendable>(
        toElement scope: AnyHashableSendable, id: ElementID, embed: @escaping @Sendable (ElementID, Action) -> Other,
        replacing previous: Channel<Other>
    ) -> Channel<Other> {
        if isVacant { return Channel<Other>.vacant() }
        let scoped = Self.scopedID(storage.id, scope, reusing: previous.storage.id)
        return Channel<Other>(storage: ElementChannelStorage(inner: storage, id: scoped, element: id, embed: embed))
    }

    /// A placeholder for a position that declares nothing (a keyed lift's freed slot): the
    /// reconciler skips it, so the positions around it keep their places. Lifts keep it vacant.
    static func vacant() -> Channel {
        Channel(storage: VacantChannelStorage())
    }

    /// Whether this is a `vacant()` placeholder.
    var isVacant: Bool { storage.id == vacantChannelID }

    static func scopedID(_ id: AnyHashableSendable, _ element: AnyHashableSendable) -> AnyHashableSendable {
        AnyHashableSendable(ElementScopedID(element: element, inner: id))
    }

    /// `scopedID(id, element)`, as `previous` when that is the same scoped id: an element whose
    /// channel is re-declared in place (a reset key or value changed) keeps its id's box, so the
    /// lift neither allocates nor hashes one, and the reconciler's id comparison is an identity.
    @inline(__always)
    static func scopedID(_ id: AnyHashableSendable, _ element: AnyHashableSendable, reusing previous: AnyHashableSendable)
        -> AnyHashableSendable
    {
        if case .boxed(let box) = previous.storage, type(of: box) == HashableBox<ElementScopedID>.self {
            let scoped = unsafeDowncast(box, to: HashableBox<ElementScopedID>.self).value
            if scoped.inner == id, scoped.element == element { return previous }
        }
        return scopedID(id, element)
    }

    /// Negative pacing durations count as zero.
    @usableFromInline static func sanitized(_ delivery: ChannelDelivery) -> ChannelDelivery {
        switch delivery {
        case .immediate: .immediate
        case .throttle(let interval, let latest): .throttle(interval.clampedToZero, latest: latest)
        case .debounce(let quiet): .debounce(quiet.clampedToZero)
        }
    }
}

/// The immutable declaration behind a `Channel` value; subclasses know how to open it.
@usableFromInline
class ChannelStorage<Action: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: every stored property here and in the subclasses is an immutable
    // `let` of a `Sendable` type (values and `@Sendable` closures).
    /// Sends an action into the store. The engine's hook stamps it with the channel's `source`
    /// (every layer of a channel carries its innermost body's source), so no layer wraps `send`
    /// only to add it: a lifted channel's instance holds one closure context per re-typing layer
    /// and none per body. The storages run unspecialised (they are reached through the class),
    /// so none of them builds a `DispatchedAction<Action>` (a generic-metadata lookup per message).
    typealias Send = @Sendable (Action) -> Void
    /// Makes the instance's `complete` hook. Non-escaping, so a channel that never completes (every
    /// one but a pipeable effect's) costs no closure for it: only `PipeChannelStorage` calls it.
    typealias MakeComplete = () -> @Sendable () -> Void

    let id: AnyHashableSendable
    let lifetime: ChannelLifetime
    let delivery: ChannelDelivery
    let source: ActionSource
    let payload: ChannelPayload

    init(id: AnyHashableSendable, lifetime: ChannelLifetime, delivery: ChannelDelivery, source: ActionSource, payload: ChannelPayload) {
        self.id = id
        self.lifetime = lifetime
        self.delivery = delivery
        self.source = source
        self.payload = payload
    }

    /// Runs the body for one new instance with the engine's send and complete hooks.
    func open(_ send: @escaping Send, complete: MakeComplete) -> ErasedChannelHandler {
        preconditionFailure("Internal inconsistency: ChannelStorage.open is abstract")
    }
}

/// A channel declared with a body that receives `dispatch` (supervised and `Effect.open` channels).
@usableFromInline
final class BodyChannelStorage<Action: Sendable, Value>: ChannelStorage<Action>, @unchecked Sendable {
    // @unchecked Sendable: see ChannelStorage; `body` is an immutable `@Sendable` closure.
    let body: @Sendable (_ dispatch: @escaping @Sendable (Action) -> Void) -> ChannelHandler<Value>

    @usableFromInline
    init(
        id: AnyHashableSendable, lifetime: ChannelLifetime, delivery: ChannelDelivery, source: ActionSource,
        payload: ChannelPayload, body: @escaping @Sendable (_ dispatch: @escaping @Sendable (Action) -> Void) -> ChannelHandler<Value>
    ) {
        self.body = body
        super.init(id: id, lifetime: lifetime, delivery: delivery, source: source, payload: payload)
    }

    override func open(_ send: @escaping Send, complete: MakeComplete) -> ErasedChannelHandler {
        ErasedChannelHandler.erasing(body(send))
    }
}

/// A pipeable effect's channel: its body also gets `complete` (`Effect.channel(value:…)`).
final class PipeChannelStorage<Action: Sendable, Value>: ChannelStorage<Action>, @unchecked Sendable {
    // @unchecked Sendable: see ChannelStorage; `body` is an immutable `@Sendable` closure.
    let body: @Sendable (_ send: @escaping @Sendable (Action) -> Void, _ complete: @escaping @Sendable () -> Void) -> ChannelHandler<Value>

    init(
        id: AnyHashableSendable, delivery: ChannelDelivery, source: ActionSource, payload: ChannelPayload,
        body:
            @escaping @Sendable (_ send: @escaping @Sendable (Action) -> Void, _ complete: @escaping @Sendable () -> Void) ->
            ChannelHandler<Value>
    ) {
        self.body = body
        super.init(id: id, lifetime: .permanent, delivery: delivery, source: source, payload: payload)
    }

    override func open(_ send: @escaping Send, complete: MakeComplete) -> ErasedChannelHandler {
        ErasedChannelHandler.erasing(body(send, complete()))
    }
}

/// Another channel re-typed through `transform` and/or moved under another id (the lifts).
final class MappedChannelStorage<Inner: Sendable, Action: Sendable>: ChannelStorage<Action>, @unchecked Sendable {
    // @unchecked Sendable: see ChannelStorage; `inner` and `transform` are immutable and Sendable.
    let inner: ChannelStorage<Inner>
    let transform: @Sendable (Inner) -> Action

    init(inner: ChannelStorage<Inner>, id: AnyHashableSendable, transform: @escaping @Sendable (Inner) -> Action) {
        self.inner = inner
        self.transform = transform
        super.init(id: id, lifetime: inner.lifetime, delivery: inner.delivery, source: inner.source, payload: inner.payload)
    }

    override func open(_ send: @escaping Send, complete: MakeComplete) -> ErasedChannelHandler {
        let transform = self.transform
        return inner.open({ action in send(transform(action)) }, complete: complete)
    }
}

/// A channel of one collection element, re-typed with the lift's `embed` and moved under the
/// element-scoped id (what the collection lifts declare for every element's channel).
///
/// Holds the element's id and `embed` itself rather than a `transform` closure capturing them:
/// a replaced element's channel is then one allocation here, not two (the closure's context),
/// and its instance's send wraps the engine's once.
final class ElementChannelStorage<Inner: Sendable, ElementID: Sendable, Action: Sendable>: ChannelStorage<Action>,
    @unchecked Sendable
{
    // @unchecked Sendable: see ChannelStorage; `inner`, `element` and `embed` are immutable and
    // Sendable.
    let inner: ChannelStorage<Inner>
    let element: ElementID
    let embed: @Sendable (ElementID, Inner) -> Action

    init(inner: ChannelStorage<Inner>, id: AnyHashableSendable, element: ElementID, embed: @escaping @Sendable (ElementID, Inner) -> Action)
    {
        self.inner = inner
        self.element = element
        self.embed = embed
        super.init(id: id, lifetime: inner.lifetime, delivery: inner.delivery, source: inner.source, payload: inner.payload)
    }

    override func open(_ send: @escaping Send, complete: MakeComplete) -> ErasedChannelHandler {
        let element = self.element
        let embed = self.embed
        return inner.open({ action in send(embed(element, action)) }, complete: complete)
    }
}

/// What a channel delivers into its handler.
@usableFromInline
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

    /// Which case this is, in one byte (what a live instance keeps of its payload).
    enum Kind: UInt8 {
        case none, onChange, value

        var name: String {
            switch self {
            case .none: "nothing"
            case .onChange: "onChange"
            case .value: "value"
            }
        }
    }

    var kind: Kind {
        switch self {
        case .none: .none
        case .onChange: .onChange
        case .value: .value
        }
    }

    var name: String { kind.name }
}

/// The id of a channel or effect that belongs to one element of a lifted collection.
///
/// Internal on purpose: application code cannot name another element's channel.
struct ElementScopedID: Hashable, Sendable, CustomStringConvertible {
    let element: AnyHashableSendable
    let inner: AnyHashableSendable

    var description: String { "\(inner)[\(element)]" }
}

/// The id of every vacant position (never a real channel's: the type is private to this file).
private struct VacantPosition: Hashable, Sendable {}
let vacantChannelID = AnyHashableSendable(VacantPosition())

/// The storage of `Channel.vacant()`: never opened (the reconciler skips vacant positions).
final class VacantChannelStorage<Action: Sendable>: ChannelStorage<Action>, @unchecked Sendable {
    // @unchecked Sendable: see ChannelStorage; nothing is added.
    init() {
        super.init(
            id: vacantChannelID, lifetime: .permanent, delivery: .immediate,
            source: ActionSource(file: #fileID, function: "vacant", line: #line), payload: .none)
    }

    override func open(_ send: @escaping Send, complete: MakeComplete) -> ErasedChannelHandler {
        preconditionFailure("Internal inconsistency: a vacant position was opened")
    }
}
