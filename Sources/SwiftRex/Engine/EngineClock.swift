/// The store's injected clock, erased to offsets from the moment the store was created.
///
/// Every engine timer (delays, debounces, throttle windows, settle, delivery pacing) reads this
/// clock, so a `TestClock` controls all of them.
struct EngineClock: Sendable {
    let now: @Sendable () -> Duration
    let sleepUntil: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        self.now = { origin.duration(to: clock.now) }
        self.sleepUntil = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }

    init(erasing clock: any Clock<Duration>) {
        self = Self.open(clock)
    }

    private static func open<C: Clock<Duration>>(_ clock: C) -> EngineClock { EngineClock(clock) }
}
