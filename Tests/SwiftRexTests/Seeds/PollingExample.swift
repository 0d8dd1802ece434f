// The polling seed (../shared/seeds/example-polling.txt), compiled as written.
import SwiftRex

struct Hit: Sendable, Equatable {
    let title: String
}

struct SearchEnv: Sendable {
    let search: @Sendable (String) async -> [Hit]
    let clock: any Clock<Duration>
}

enum SearchAction: Sendable {
    case setQuery(String)
    case results([Hit])
}

struct SearchState: Sendable {
    var query = ""
    var hits: [Hit] = []
}

let search = Behavior<SearchAction, SearchState, SearchEnv>
    .reduce { action, state in
        switch action {
        case .setQuery(let q): state.query = q
        case .results(let hits): state.hits = hits
        }
    }
    .supervise { state in
        Supervision { env in
            guard !state.query.isEmpty else { return [] }  // no query → no poll
            let query = state.query
            return [
                Channel(id: "poll", lifetime: .ephemeral(resetKey: query)) { dispatch in
                    let task = Task {
                        while !Task.isCancelled {
                            dispatch(.results(await env.search(query)))
                            try? await env.clock.sleep(for: .seconds(5))
                        }
                    }
                    return .cancelOnly { task.cancel() }
                }
            ]
        }
    }

extension SearchAction: Equatable {}
extension SearchState: Equatable {}
