// The delay seed (../shared/seeds/example-delay.txt), compiled as written.
import SwiftRex

struct Event: Sendable, Equatable {
    let name: String
}

struct FeedEnv: Sendable {
    let events: AsyncStream<Event>
    let clock: any Clock<Duration>
    let lag: Duration
}

enum FeedAction: Sendable {
    case listen, stop
    case surfaced(Event)
}

struct FeedState: Sendable {
    var listening = false
    var shown: [Event] = []
}

let feed = Behavior<FeedAction, FeedState, FeedEnv>
    .reduce { action, state in
        switch action {
        case .listen: state.listening = true
        case .stop: state.listening = false
        case .surfaced(let e): state.shown.append(e)
        }
    }
    .supervise { state in
        Supervision { env in
            guard state.listening else { return [] }
            return [
                Channel(id: "feed") { dispatch in
                    let task = Task {
                        await withTaskGroup(of: Void.self) { group in
                            for await event in env.events {
                                group.addTask {
                                    try? await env.clock.sleep(for: env.lag)  // shift this event by `lag`
                                    dispatch(.surfaced(event))
                                }
                            }
                        }
                    }
                    return .cancelOnly { task.cancel() }
                }
            ]
        }
    }

extension FeedAction: Equatable {}
extension FeedState: Equatable {}
