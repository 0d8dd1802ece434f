extension Effect {
    /// Opens `channel` now, with its lifetime managed by you (`cancel(id:)`) rather than by a
    /// supervise. If a channel is already live under its id, its value is delivered instead.
    /// A settle in the channel's lifetime defers the open as it does in reconcile.
    public static func open(_ channel: Channel<Action>) -> Effect {
        Effect(component: EffectComponent(kind: .open(channel), scheduling: EffectScheduling(id: channel.id)))
    }

    /// Sends `value` into the live channel registered under `channel`, without opening anything.
    ///
    /// Not deduplicated (sending "hi" twice delivers twice). Dropped when nothing is live under the
    /// id, while the channel settles, or when the value's type does not match the channel's.
    @inlinable  // specialised where it is called: one broadcast per message on a busy channel
    public static func broadcast<Value: Sendable>(
        _ value: Value,
        channel: some Hashable & Sendable,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) -> Effect {
        Effect(component: EffectComponent(kind: .broadcast(value), scheduling: EffectScheduling(id: AnyHashableSendable(channel))))
    }

    /// Cancels whatever runs under `id` — a one-shot, a pending delayed or debounced run, a live
    /// or settling channel — and starts nothing.
    public static func cancel<H: Hashable & Sendable>(id: H) -> Effect {
        Effect(component: EffectComponent(kind: .run { _, _ in .empty }, scheduling: .cancelInFlight(id: id)))
    }

    /// A pipeable effect: the store opens the body once under `scheduling.id` and feeds every later
    /// dispatch's `value` into the same running instance.
    ///
    /// The first value is delivered on open. A `.debounce`/`.throttle` coalesce in `scheduling`
    /// paces values (not the lifetime). The body may call `complete` to end the channel.
    /// Without an id each dispatch opens a new, unreachable instance.
    public static func channel<Value: Sendable>(
        value: Value,
        scheduling: EffectScheduling,
        file: String = #fileID, function: String = #function, line: UInt = #line,
        _ body:
            @escaping @Sendable (_ send: @escaping @Sendable (Action) -> Void, _ complete: @escaping @Sendable () -> Void) ->
            ChannelHandler<Value>
    ) -> Effect {
        let source = ActionSource(file: file, function: function, line: line)
        let id = scheduling.id ?? AnyHashableSendable(AnonymousChannelID())
        let delivery: ChannelDelivery =
            switch scheduling.coalesce {
            case .none: .immediate
            case .throttle(let interval): .throttle(interval)
            case .debounce(let quiet): .debounce(quiet)
            }
        let channel = Channel<Action>(
            storage: PipeChannelStorage(
                id: id, delivery: Channel<Action>.sanitized(delivery), source: source, payload: .value(value), body: body
            ))
        var keyed = scheduling
        keyed.id = id
        return Effect(component: EffectComponent(kind: .open(channel), scheduling: keyed))
    }

    /// A pipeable effect whose body consumes the piped values as an `AsyncStream`.
    ///
    /// The body runs in a task started when the channel opens; the first value is already in the
    /// stream. Cancelling the channel finishes the stream and cancels the task.
    public static func channel<Value: Sendable>(
        value: Value,
        scheduling: EffectScheduling,
        bufferingPolicy: AsyncStream<Value>.Continuation.BufferingPolicy = .unbounded,
        file: String = #fileID, function: String = #function, line: UInt = #line,
        consume:
            @escaping @Sendable (
                AsyncStream<Value>, _ send: @escaping @Sendable (Action) -> Void, _ complete: @escaping @Sendable () -> Void
            ) async -> Void
    ) -> Effect {
        channel(value: value, scheduling: scheduling, file: file, function: function, line: line) { send, complete in
            let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: bufferingPolicy)
            let task = Task { await consume(stream, send, complete) }
            return ChannelHandler(
                receive: { continuation.yield($0) },
                cancel: {
                    continuation.finish()
                    task.cancel()
                }
            )
        }
    }
}

/// A fresh id for an `Effect.channel` dispatched without one: never equal to any other.
final class AnonymousChannelID: Hashable, Sendable {
    static func == (lhs: AnonymousChannelID, rhs: AnonymousChannelID) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
