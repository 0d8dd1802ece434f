// The timer seed (../shared/seeds/example-timer.txt), compiled as written.
import SwiftRex

enum TimerAction: Sendable {
    case start, stop
    case setInterval(Duration)
    case tick
}

struct TimerState: Sendable {
    var isRunning = false
    var interval: Duration = .seconds(1)
    var elapsed = 0
}

let timer = Behavior<TimerAction, TimerState, Void>
    .reduce { action, state in
        switch action {
        case .start: state.isRunning = true
        case .stop: state.isRunning = false
        case .setInterval(let d): state.interval = d
        case .tick: state.elapsed += 1
        }
    }
    .supervise { state in
        Supervision { _ in
            guard state.isRunning else { return [] }  // stopped → the ticker is cancelled
            return [
                Channel(id: "ticker", lifetime: .ephemeral(resetKey: state.interval)) { dispatch in
                    let task = Task {
                        while !Task.isCancelled {
                            try? await Task.sleep(for: state.interval)
                            dispatch(.tick)
                        }
                    }
                    return .cancelOnly { task.cancel() }
                }
            ]
        }
    }

// "Make it testable — inject the clock": the same timer reading env.clock.
struct TimerEnv: Sendable { let clock: any Clock<Duration> }

let testableTimer = Behavior<TimerAction, TimerState, TimerEnv>
    .reduce { action, state in
        switch action {
        case .start: state.isRunning = true
        case .stop: state.isRunning = false
        case .setInterval(let d): state.interval = d
        case .tick: state.elapsed += 1
        }
    }
    .supervise { state in
        Supervision { env in
            guard state.isRunning else { return [] }
            return [
                Channel(id: "ticker", lifetime: .ephemeral(resetKey: state.interval)) { dispatch in
                    let task = Task {
                        while !Task.isCancelled {
                            try? await env.clock.sleep(for: state.interval)
                            dispatch(.tick)
                        }
                    }
                    return .cancelOnly { task.cancel() }
                }
            ]
        }
    }

extension TimerAction: Equatable {}
extension TimerState: Equatable {}
