import Synchronization

/// A handle that stops a running subscription.
///
/// `cancel()` runs the cancellation closure at most once; releasing the last reference to a token
/// that was never cancelled cancels it too (like `AnyCancellable`), so a dropped token never leaks
/// work. Cancelling twice, or cancelling and then releasing, runs the closure exactly once.
public final class SubscriptionToken: Sendable {
    private let onCancel: Mutex<(@Sendable () -> Void)?>

    /// Creates a token that runs `onCancel` when cancelled or released.
    public init(_ onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Mutex(onCancel)
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
        let action = onCancel.withLock { slot -> (@Sendable () -> Void)? in
            defer { slot = nil }
            return slot
        }
        action?()
    }

    /// Forgets the cancellation closure without running it: the work finished on its own.
    func disarm() {
        onCancel.withLock { $0 = nil }
    }

    deinit {
        cancel()
    }
}
