/// What a channel body returns: how to feed a value into the live resource, and how to tear it down.
///
/// The engine calls `receive` for every value piped into the channel (from
/// `Broadcasting.onChange(_:)` or `Effect.broadcast(_:channel:)`), and `cancel` exactly once when
/// the channel leaves the desired set, is recreated, is cancelled by id, or the store is released.
/// Both run on the store's executor, so they may touch resources that are not thread-safe (a
/// socket owned by that executor), which is why a handler is not `Sendable`.
public struct ChannelHandler<Value> {
    let receive: (Value) -> Void
    let cancel: () -> Void

    /// A handler that accepts values with `receive` and tears down with `cancel`.
    public init(receive: @escaping (Value) -> Void, cancel: @escaping () -> Void) {
        self.receive = receive
        self.cancel = cancel
    }
}

@available(*, unavailable)
extension ChannelHandler: Sendable {}

extension ChannelHandler where Value == Never {
    /// A pure receiver: nothing is ever piped in; `cancel` tears it down.
    public static func cancelOnly(_ cancel: @escaping () -> Void) -> ChannelHandler<Never> {
        ChannelHandler(receive: { _ in }, cancel: cancel)
    }
}

/// A handler with its value type erased, as the engine stores it.
///
/// One allocation per live instance: the typed subclass keeps the body's two closures as they
/// are (wrapping `receive` in an erasing closure cost a second, captured context per instance).
@usableFromInline
class ErasedChannelHandler {
    /// Delivers a value; returns false when the value's type does not match the channel's.
    @usableFromInline func receive(_ value: any Sendable) -> Bool {
        preconditionFailure("Internal inconsistency: ErasedChannelHandler.receive is abstract")
    }

    /// Tears the resource down (the engine calls it exactly once).
    func cancel() {
        preconditionFailure("Internal inconsistency: ErasedChannelHandler.cancel is abstract")
    }

    /// The handler a channel body returned, erased.
    static func erasing<Value>(_ handler: ChannelHandler<Value>) -> ErasedChannelHandler {
        TypedChannelHandler(handler)
    }
}

/// `ErasedChannelHandler` for one value type.
final class TypedChannelHandler<Value>: ErasedChannelHandler {
    private let typedReceive: (Value) -> Void
    private let typedCancel: () -> Void

    init(_ handler: ChannelHandler<Value>) {
        typedReceive = handler.receive
        typedCancel = handler.cancel
    }

    override func receive(_ value: any Sendable) -> Bool {
        Self.deliver(value, to: typedReceive)
    }

    override func cancel() { typedCancel() }

    /// Opens the existential and, when its dynamic type is exactly `Value` (the common case),
    /// hands it over without a dynamic cast: this code runs unspecialised, where `as? Value`
    /// costs a runtime cast plus an `Optional<Value>` metadata lookup per delivery.
    private static func deliver<Given>(_ value: Given, to receive: (Value) -> Void) -> Bool {
        if ObjectIdentifier(Given.self) == ObjectIdentifier(Value.self) {
            receive(unsafeBitCast(value, to: Value.self))
            return true
        }
        return deliverCasting(value, to: receive)
    }

    /// Subclasses, existential value types and bridged values take the general cast. Kept out of
    /// line: its `Optional<Value>` would otherwise be looked up on the fast path too.
    @inline(never)
    private static func deliverCasting<Given>(_ value: Given, to receive: (Value) -> Void) -> Bool {
        guard let typed = value as? Value else { return false }
        receive(typed)
        return true
    }
}
