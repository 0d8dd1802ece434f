import Synchronization

/// A clock whose sleeps return at once, moving its `now` forward by the time slept.
///
/// Useful when a test does not care about timing: delays, debounces and settles elapse
/// immediately (after a task hop), while `now` stays consistent with what was slept.
public final class ImmediateClock: Clock, Sendable {
    public typealias Instant = TestClock.Instant

    private let current = Mutex(Instant(offset: .zero))

    public init() {}

    public var now: Instant { current.withLock { $0 } }
    public var minimumResolution: Duration { .zero }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        current.withLock { if $0 < deadline { $0 = deadline } }
        await Task.yield()
        try Task.checkCancellation()
    }
}
