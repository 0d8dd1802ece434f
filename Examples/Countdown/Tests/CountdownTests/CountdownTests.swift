import Countdown
import SwiftRexTesting
import Testing

@Suite struct CountdownTests {
    typealias Store = TestStore<Countdown.Action, Countdown.State, Countdown.Environment>

    func makeStore(_ clock: TestClock) -> Store {
        TestStore(
            initial: Countdown.State(), behavior: Countdown.behavior,
            environment: Countdown.Environment(clock: clock), clock: clock
        )
    }

    @Test func countsDownOnTheClockAndRingsAtZero() async {
        let clock = TestClock()
        let store = makeStore(clock)
        await store.send(.start(seconds: 2)) {
            $0.remaining = 2
            $0.isRunning = true
        }
        #expect(await store.keep().liveIDs == [AnyHashableSendable("ticker")])

        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await store.receive(.tick) { $0.remaining = 1 }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await store.receive(.tick) {
            $0.remaining = 0
            $0.isRunning = false
            $0.rings = 1
        }
        // Zero: supervise names no ticker any more, so the store cancelled it.
        #expect(await store.keep().channels.isEmpty)
        await store.finish()
    }

    @Test func pauseCancelsTheTickerAndResumeStartsANewOne() async {
        let clock = TestClock()
        let store = makeStore(clock)
        await store.send(.start(seconds: 10)) {
            $0.remaining = 10
            $0.isRunning = true
        }
        await clock.waitForSleepers(1)
        await store.send(.pause) { $0.isRunning = false }
        #expect(await store.keep().channels.isEmpty)
        #expect(clock.sleeperCount == 0, "pausing cancelled the ticker's sleep")
        clock.advance(by: .seconds(5))
        await store.expectNoAction()

        await store.send(.resume) { $0.isRunning = true }
        #expect(await store.keep().entry(for: "ticker")?.opens == 1, "a fresh instance")
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await store.receive(.tick) { $0.remaining = 9 }
        await store.send(.reset) {
            $0.remaining = 0
            $0.isRunning = false
        }
        await store.finish()
    }

    @Test func outOfRangeStartsAreIgnored() async {
        let store = makeStore(TestClock())
        await store.send(.start(seconds: 0))
        await store.send(.start(seconds: -5))
        await store.send(.start(seconds: Countdown.maximumSeconds + 1))
        await store.send(.resume)  // nothing left to resume
        #expect(await store.keep().channels.isEmpty)
        await store.finish()
    }
}
