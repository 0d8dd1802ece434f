// Public: the inlinable read and publish paths below use its Mutex.
public import Synchronization

/// The state as of the last finished batch, readable from any thread, and its observers.
///
/// Publishing costs one lock and one retain per batch (state is copy-on-write), not per action.
/// Reading and publishing are inlinable, specialised with the drain loop for the store's state.
@usableFromInline
final class PublishedState<State: Sendable>: Sendable {
    @usableFromInline let current: Mutex<State>
    /// Observers are boxed: closures kept directly in a `Mutex` are re-thunked on each access.
    @usableFromInline
    final class Observer: Sendable {
        @usableFromInline let notify: @Sendable (State) -> Void
        init(_ notify: @escaping @Sendable (State) -> Void) { self.notify = notify }
    }

    @usableFromInline let observers = Mutex<[UInt64: Observer]>([:])
    private let nextObserver = Atomic<UInt64>(0)

    @usableFromInline
    init(_ initial: State) {
        current = Mutex(initial)
    }

    @inlinable
    var value: State { current.withLock { $0 } }

    /// Stores `state` and calls every observer with it (on the store's executor).
    @inlinable
    func publish(_ state: State) {
        current.withLock { $0 = state }
        let callbacks = observers.withLock { $0.isEmpty ? [] : Array($0.values) }
        for callback in callbacks { callback.notify(state) }
    }

    func addObserver(_ callback: @escaping @Sendable (State) -> Void) -> SubscriptionToken {
        let id = nextObserver.add(1, ordering: .relaxed).newValue
        let observer = Observer(callback)
        observers.withLock { $0[id] = observer }
        return SubscriptionToken { [weak self] in
            _ = self?.observers.withLock { $0.removeValue(forKey: id) }
        }
    }

    func removeObservers() {
        observers.withLock { $0.removeAll() }
    }
}
