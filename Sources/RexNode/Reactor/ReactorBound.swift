import RexCluster

/// A value that may only be used on one reactor's thread, passed around as `Sendable`.
///
/// Lets non-thread-safe state (sockets and their bookkeeping) travel inside a `Sendable`
/// environment while every access is checked at run time to happen on the owning reactor.
public final class ReactorBound<Value>: @unchecked Sendable {
    // @unchecked Sendable: `storage` is read and written only through `value`, which traps
    // unless the caller runs on `reactor`'s thread, so all accesses are serialized on it.
    private let storage: Value
    /// The reactor whose thread alone may touch the value.
    public let reactor: Reactor

    /// Wraps `value`; must be called on the reactor thread.
    public init(_ value: Value, on reactor: Reactor) {
        reactor.checkIsolated()
        self.storage = value
        self.reactor = reactor
    }

    /// The value; traps when called off the reactor thread.
    public var value: Value {
        reactor.checkIsolated()
        return storage
    }
}
