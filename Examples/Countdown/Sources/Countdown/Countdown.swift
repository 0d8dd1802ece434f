public import SwiftRex

/// A kitchen timer: start it with a number of seconds, pause and resume it; it rings at zero.
///
/// The ticking is a channel the state keeps alive: while the countdown runs, `supervise` names
/// one ticker; pausing, finishing or resetting removes it from the list and the store cancels it.
public enum Countdown {
    public struct State: Sendable, Equatable {
        /// Seconds left.
        public var remaining = 0
        /// Whether the ticker should run.
        public var isRunning = false
        /// How many countdowns reached zero.
        public var rings = 0

        public init(remaining: Int = 0, isRunning: Bool = false, rings: Int = 0) {
            self.remaining = remaining
            self.isRunning = isRunning
            self.rings = rings
        }
    }

    public enum Action: Sendable, Equatable {
        /// Start from `seconds` (bounded: 0…86,400; anything else is ignored).
        case start(seconds: Int)
        case pause
        case resume
        case reset
        /// One second passed (sent by the ticker).
        case tick
    }

    public struct Environment: Sendable {
        /// The clock the ticker sleeps on (a `TestClock` in tests).
        public let clock: any Clock<Duration>

        public init(clock: any Clock<Duration>) { self.clock = clock }
    }

    /// The longest countdown accepted: a day.
    public static let maximumSeconds = 86_400

    public static let behavior = Behavior<Action, State, Environment>
        .reduce { action, state in
            switch action {
            case .start(let seconds):
                guard (1...maximumSeconds).contains(seconds) else { return }
                state.remaining = seconds
                state.isRunning = true
            case .pause:
                state.isRunning = false
            case .resume:
                state.isRunning = state.remaining > 0
            case .reset:
                state.remaining = 0
                state.isRunning = false
            case .tick:
                guard state.isRunning, state.remaining > 0 else { return }
                state.remaining -= 1
                if state.remaining == 0 {
                    state.isRunning = false
                    state.rings += 1
                }
            }
        }
        .supervise { state in
            Supervision { environment in
                guard state.isRunning else { return [] }
                return [
                    Channel(id: "ticker", lifetime: .permanent) { dispatch in
                        let clock = environment.clock
                        let task = Task {
                            while !Task.isCancelled {
                                do { try await clock.sleep(for: .seconds(1)) } catch { return }
                                dispatch(.tick)
                            }
                        }
                        return .cancelOnly { task.cancel() }
                    }
                ]
            }
        }
}
