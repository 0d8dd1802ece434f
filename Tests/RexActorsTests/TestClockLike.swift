import SwiftRexTesting

/// The shared test clock (SwiftRexTesting's `TestClock`), named once for the suites.
struct TestClockLike: Sendable {
    let clock = TestClock()

    /// Waits until `count` sleepers (call deadlines) are parked, then moves time by `duration`.
    func advance(by duration: Duration, afterSleepers count: Int = 1) async -> Bool {
        let parked = await clock.waitForSleepers(count)
        clock.advance(by: duration)
        return parked
    }
}
