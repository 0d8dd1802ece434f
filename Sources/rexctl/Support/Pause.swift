#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Blocking sleeps for the synchronous command loops (poll intervals, send rates).
enum Pause {
    /// Sleeps until `instant` (returns at once if it has passed).
    static func until(_ instant: ContinuousClock.Instant) {
        let remaining = ContinuousClock.now.duration(to: instant)
        if remaining > .zero { sleep(remaining) }
    }

    /// Sleeps for `duration`, resuming after signals.
    static func sleep(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}

extension Duration {
    /// The smaller of two durations.
    static func minimum(_ a: Duration, _ b: Duration) -> Duration { a < b ? a : b }
}
