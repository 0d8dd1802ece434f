import Synchronization

/// A handle that stops a running subscription.
///
/// `cancel()` runs the cancellation closure at most once; releasing the last reference to a token
/// that was never cancelled cancels it too (like `AnyCancellable`), so a dropped token never leaks
/// work. Cancelling twice, or cancelling and then releasing, runs the closure exactly once.
public final class SubscriptionToken: Sendable {
    /// The closure, boxed: a bare optional closure in a `Mutex` gets re-thunked on every access.
    private final class Action: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private let onCancel: Mutex<Action?>

    /// Creates a token that runs `onCancel` when cancelled or released.
    public init(_ onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Mutex(Action(onCancel))
    }

    private init(empty: Void) {
        self.onCancel = Mutex(nil)
    }

    /// A token with nothing to cancel.
    public static let empty = SubscriptionToken(empty: ())

    /// Whether `cancel()` has run (or the token was created empty).
    public var isCancelled: Bool { onCancel.withLock { $0 == nil } }

    /// Runs the cancellation closure if it has not run yet.
    public func cancel() {
        let action = onCancel.withLock { slot -> Action? in
            defer { slot = nil }
            return slot
        }
        action?.run()
    }

    /// Forgets the cancellation closure without running it: the work finished on its own.
    func disarm() {
        onCancel.withLock { $0 = nil }
    }

    deinit {
        cancel()
    }
}
