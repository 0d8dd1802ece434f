import SwiftRexTesting
import Testing

/// A reconcile cycle stamps its opens with one reading of the clock, but the windows it arms —
/// settle, debounce, throttle — start when the engine acts: a slow body earlier in the same cycle
/// (here one that moves the test clock 50 ms, as a socket connect takes time) must not shorten them.
@Suite struct CycleClockTests {
    struct State: Sendable, Equatable {
        var on = false
        var slowKey = 0
        var value = 0
    }

    enum Action: Sendable, Equatable {
        case start
        /// Recreates slow and sets the value: one cycle.
        case step(value: Int)
        case set(value: Int)
    }

    let recorder = Recorder()
    let clock = TestClock()

    /// Declares "slow" (recreated whenever `slowKey` changes; its body advances the clock 50 ms)
    /// before the channel under test, so both open in one cycle, slow first.
    func makeStore(_ probe: @escaping @Sendable (State, Recorder) -> Channel<Action>) -> TestStore<Action, State, Void> {
        let clock = self.clock
        let recorder = self.recorder
        let behavior = Behavior<Action, State, Void>
            .reduce { action, state in
                switch action {
                case .start: state.on = true
                case .step(let value):
                    state.slowKey += 1
                    state.value = value
                case .set(let value): state.value = value
                }
            }
            .supervise { state in
                Supervision { _ in
                    guard state.on else { return [] }
                    let slow = Channel<Action>(id: "slow", lifetime: .ephemeral(resetKey: state.slowKey)) { _ in
                        clock.advance(by: .milliseconds(50))
                        return .cancelOnly {}
                    }
                    return [slow, probe(state, recorder)]
                }
            }
        return TestStore(initial: State(), behavior: behavior, environment: (), clock: clock)
    }

    @Test func aSettleWindowStartsWhenTheChannelSettlesNotWhenTheCycleBegan() async {
        let store = makeStore { _, recorder in
            Channel(id: "probe", lifetime: .ephemeral(resetKey: 0, settle: .milliseconds(30))) { _ in
                recorder.log("open probe")
                return .cancelOnly {}
            }
        }
        await store.send(.start) { $0.on = true }  // slow takes the clock to 50 ms, then probe settles
        clock.advance(by: .milliseconds(29))
        await store.settle()
        #expect(await store.keep().entry(for: "probe")?.status == .settling, "30 ms of settle from 50 ms: not over at 79 ms")
        #expect(recorder.log.isEmpty)
        clock.advance(by: .milliseconds(1))
        await store.settle()
        #expect(recorder.log == ["open probe"])
        await store.finish(cancelChannels: true)
    }

    @Test func aDebouncedValueWaitsItsQuietTimeFromWhenItArrived() async {
        let store = makeStore { state, recorder in
            Channel(id: "probe", broadcasting: .onChange(state.value), delivery: .debounce(.milliseconds(30))) { _ in
                ChannelHandler(receive: { (value: Int) in recorder.log("recv \(value)") }, cancel: {})
            }
        }
        await store.send(.start) { $0.on = true }
        #expect(recorder.log == ["recv 0"], "the value on open is not paced")
        // One cycle: slow is recreated (50 → 100 ms), then probe's new value arrives.
        await store.send(.step(value: 1)) {
            $0.slowKey = 1
            $0.value = 1
        }
        clock.advance(by: .milliseconds(29))
        await store.settle()
        #expect(recorder.log == ["recv 0"], "arrived at 100 ms: quiet until 130 ms")
        clock.advance(by: .milliseconds(1))
        await store.settle()
        #expect(recorder.log == ["recv 0", "recv 1"])
        await store.finish(cancelChannels: true)
    }

    @Test func aThrottleWindowOpenedWithAValueStartsWhenThatValueIsDelivered() async {
        let store = makeStore { state, recorder in
            Channel(id: "probe", broadcasting: .onChange(state.value), delivery: .throttle(.milliseconds(30), latest: true)) { _ in
                ChannelHandler(receive: { (value: Int) in recorder.log("recv \(value)") }, cancel: {})
            }
        }
        await store.send(.start) { $0.on = true }  // probe opens at 50 ms with 0: its window runs to 80 ms
        #expect(recorder.log == ["recv 0"])
        await store.send(.set(value: 1)) { $0.value = 1 }  // still 50 ms: inside the window, held
        #expect(recorder.log == ["recv 0"], "one value per 30 ms")
        clock.advance(by: .milliseconds(30))
        await store.settle()
        #expect(recorder.log == ["recv 0", "recv 1"], "the latest value at the window's end")
        await store.finish(cancelChannels: true)
    }
}
