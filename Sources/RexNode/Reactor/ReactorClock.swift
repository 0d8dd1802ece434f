/// The time a reactor keeps its timers on: time elapsed since the reactor started, read from a
/// clock given to it — `ContinuousClock` in a running node, a test clock where a test or a
/// simulation decides when time passes.
///
/// The poll still waits in real time (at most until the next deadline as this clock counts it,
/// and never past the reactor's idle wake), so a clock that jumps ahead fires its due timers at
/// the next turn: any job handed to the reactor, or its idle wake, starts one.
public struct ReactorClock: Sendable {
    /// Time since the reactor started, on the injected clock.
    let elapsed: @Sendable () -> Duration

    /// Reads `clock`, from now on.
    public init<C: Clock<Duration>>(_ clock: C) {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
    }

    /// The machine's monotonic clock.
    public static var continuous: ReactorClock { ReactorClock(ContinuousClock()) }
}
