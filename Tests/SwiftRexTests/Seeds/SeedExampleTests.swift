import SharedTestSupport
import SwiftRexTesting
import Testing

/// The three seed examples, driven on a `TestClock`, behave exactly as their text says.
@Suite struct SeedExampleTests {
    @Test func timerTicksWhileRunningAndStopsOnStop() async {
        let clock = TestClock()
        let store = TestStore(initial: TimerState(), behavior: testableTimer, environment: TimerEnv(clock: clock), clock: clock)

        await store.send(.start) { $0.isRunning = true }
        #expect(await store.keep().liveIDs == [AnyHashableSendable("ticker")])
        for expected in 1...3 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
            await store.receive(.tick) { $0.elapsed = expected }
        }

        await store.send(.stop) { $0.isRunning = false }
        #expect(await store.keep().channels.isEmpty)
        #expect(clock.sleeperCount == 0, "stop cancelled the ticker's sleep")
        clock.advance(by: .seconds(10))
        await store.expectNoAction()
        await store.finish()
    }

    @Test func timerIntervalChangeRecreatesTheTicker() async {
        let clock = TestClock()
        let store = TestStore(initial: TimerState(), behavior: testableTimer, environment: TimerEnv(clock: clock), clock: clock)
        await store.send(.start) { $0.isRunning = true }
        await clock.waitForSleepers(1)

        await store.send(.setInterval(.seconds(3))) { $0.interval = .seconds(3) }
        let entry = await store.keep().entry(for: "ticker")
        #expect(entry?.opens == 2)
        #expect(entry?.recreates == 1)

        // The new ticker runs on the new period: nothing at 1 s or 2 s, a tick at 3 s.
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        await store.expectNoAction()
        clock.advance(by: .seconds(1))
        await store.receive(.tick) { $0.elapsed = 1 }

        // Same interval again: no recreate.
        await store.send(.setInterval(.seconds(3)))
        #expect(await store.keep().entry(for: "ticker")?.recreates == 1)
        await store.send(.stop) { $0.isRunning = false }
        await store.finish()
    }

    /// The seed's own timer sleeps with `Task.sleep`, on the wall clock (the seed text says a
    /// test cannot control it: the TestClock version above proves the same exactly). Its ticks
    /// are awaited on the store's observer; that none comes after stop can only be watched for a
    /// while on this clock: ten intervals.
    @Test func timerAsWrittenTicksOnTheWallClockAndStopsOnStop() async throws {
        let interval = Duration.milliseconds(5)
        let store = Store(initial: TimerState(interval: interval), behavior: timer)
        let threeTicks = Arrivals()
        let observation = store.observe { state in if state.elapsed >= 3 { threeTicks.signal() } }
        store.dispatch(.start)
        #expect(await threeTicks.wait(), "three ticks")
        observation.cancel()
        store.dispatch(.stop)
        await store.waitUntilIdle()
        let atStop = store.state.elapsed
        try await Task.sleep(for: interval * 10)
        await store.waitUntilIdle()
        #expect(store.state.elapsed == atStop, "no tick after stop")
        #expect(await store.keep().channels.isEmpty)
    }

    @Test func pollingRestartsOnQueryChangeAndStopsOnEmptyQuery() async {
        let clock = TestClock()
        let env = SearchEnv(search: { query in [Hit(title: "hit for \(query)")] }, clock: clock)
        let store = TestStore(initial: SearchState(), behavior: search, environment: env, clock: clock)

        await store.send(.setQuery("swift")) { $0.query = "swift" }
        await store.receive(.results([Hit(title: "hit for swift")])) { $0.hits = [Hit(title: "hit for swift")] }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        await store.receive(.results([Hit(title: "hit for swift")]))

        // A new query cancels the old poll and starts a new one at once.
        await clock.waitForSleepers(1)
        await store.send(.setQuery("rex")) { $0.query = "rex" }
        await store.receive(.results([Hit(title: "hit for rex")])) { $0.hits = [Hit(title: "hit for rex")] }
        let entry = await store.keep().entry(for: "poll")
        #expect(entry?.recreates == 1)
        await clock.waitForSleepers(1)
        #expect(clock.sleeperCount == 1, "only the new poll sleeps")

        // Clearing the query tears the poll down: nothing more arrives.
        await store.send(.setQuery("")) { $0.query = "" }
        #expect(await store.keep().channels.isEmpty)
        clock.advance(by: .seconds(60))
        await store.expectNoAction()
        await store.finish()
    }

    @Test func delayShiftsEachEventByTheLag() async {
        let clock = TestClock()
        let (events, input) = AsyncStream<Event>.makeStream()
        let env = FeedEnv(events: events, clock: clock, lag: .seconds(1))
        let store = TestStore(initial: FeedState(), behavior: feed, environment: env, clock: clock)
        await store.send(.listen) { $0.listening = true }

        var shown: [Event] = []
        for (at, name) in [(4, "a"), (6, "b"), (9, "c")] {
            clock.advance(to: .init(offset: .seconds(at)))
            input.yield(Event(name: name))
            await clock.waitForSleepers(1)
            clock.advance(by: .milliseconds(999))
            await store.expectNoAction()
            clock.advance(by: .milliseconds(1))
            #expect(clock.now.offset == .seconds(at + 1))
            shown.append(Event(name: name))
            await store.receive(.surfaced(Event(name: name))) { [shown] in $0.shown = shown }
        }
        await store.send(.stop) { $0.listening = false }
        await store.finish()
    }

    @Test func delayFiresNothingAfterTeardown() async {
        let clock = TestClock()
        let (events, input) = AsyncStream<Event>.makeStream()
        let env = FeedEnv(events: events, clock: clock, lag: .seconds(1))
        let store = TestStore(initial: FeedState(), behavior: feed, environment: env, clock: clock)
        await store.send(.listen) { $0.listening = true }

        input.yield(Event(name: "in flight"))
        await clock.waitForSleepers(1)
        await store.send(.stop) { $0.listening = false }
        clock.advance(by: .seconds(5))
        await store.expectNoAction(within: .milliseconds(100))
        await store.finish()
    }
}
