import Synchronization

/// A clock whose sleeps return at once, moving its `now` forward by the time slept.
///
/// Useful when a test does not care about timing: delays, debounces and settles elapse
/// immediately (after a task hop), while `now` stays consistent with what was slept.
public final class ImmediateClock: Clock, Sendable {
    /// Instants are offsets from the clock's start, as on ``TestClock``.
    public typealias Instant = TestClock.Instant

    private let current = Mutex(Instant(offset: .zero))

    /// A clock at offset zero.
    public init() {}

    /// The latest deadline slept until (zero before any sleep).
    public var now: Instant { current.withLock { $0 } }
    /// Zero: any duration can be slept.
    public var minimumResolution: Duration { .zero }

    /// Moves `now` to `deadline` (if later) and returns after one task hop; throws if cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        current.withLock { if $0 < deadline { $0 = deadline } }
        await Task.yield()
        try Task.checkCancellation()
    }
}
