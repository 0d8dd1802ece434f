import SwiftRex
import SwiftRexTesting
import Testing

// The examples of the DocC catalog (Sources/SwiftRex/SwiftRex.docc), compiled and run as written:
// the landing page's timer and the testing article's test of it.

/// The seeds declare a TimerAction of their own: the catalog's types live in this namespace.
enum Catalog {
    enum TimerAction: Sendable, Equatable { case start, stop, tick }
    struct TimerState: Sendable, Equatable { var running = false; var elapsed = 0 }

    static let timer = Behavior<TimerAction, TimerState, any Clock<Duration>>
        .reduce { action, state in
            switch action {
            case .start: state.running = true
            case .stop: state.running = false
            case .tick: state.elapsed += 1
            }
        }
        .supervise { state in
            Supervision { clock in
                guard state.running else { return [] }
                return [
                    Channel(id: "ticker") { dispatch in
                        let task = Task {
                            while (try? await clock.sleep(for: .seconds(1))) != nil { dispatch(.tick) }
                        }
                        return .cancelOnly { task.cancel() }
                    }
                ]
            }
        }
}

@Suite struct DocumentationExampleTests {
    @Test func ticksWhileRunning() async {
        let clock = TestClock()
        let store = TestStore(initial: Catalog.TimerState(), behavior: Catalog.timer, environment: clock, clock: clock)
        await store.send(.start) { $0.running = true }
        _ = await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await store.receive(.tick) { $0.elapsed = 1 }
        await store.send(.stop) { $0.running = false }
        await store.finish()
    }
}
