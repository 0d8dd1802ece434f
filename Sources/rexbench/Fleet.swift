import SwiftRex

/// A feature that keeps one ephemeral channel alive per key: the reconcile benchmark's workload.
///
/// The state holds `K` ids and a reset key for each; supervise returns `K` channels with cheap
/// bodies (`.cancelOnly {}`), in state order. Actions change a slice of the keys so that a chosen
/// fraction of channels churns each cycle.
enum Fleet {
    struct State: Sendable {
        var ids: [Int]
        var resetKeys: [Int]
        /// Bumped by every action, so every action mutates state and triggers a reconcile.
        var revision = 0
        /// Where the next churn slice starts (walks round the keys).
        var cursor = 0
        var nextID: Int

        init(count: Int) {
            ids = Array(0..<count)
            resetKeys = Array(repeating: 0, count: count)
            nextID = count
        }
    }

    enum Action: Sendable {
        /// Mutates state without changing the desired set (0 % churn).
        case touch
        /// `count` channels change their ephemeral reset key: each is cancelled and reopened.
        case rekey(count: Int)
        /// `count` ids leave the set and as many new ids enter (at the same positions).
        case replace(count: Int)
    }

    static let behavior = Behavior<Action, State, Void>
        .reduce { action, state in
            state.revision &+= 1
            let k = state.ids.count
            guard k > 0 else { return }
            switch action {
            case .touch:
                break
            case .rekey(let count):
                for j in 0..<count { state.resetKeys[(state.cursor + j) % k] &+= 1 }
                state.cursor = (state.cursor + count) % k
            case .replace(let count):
                for j in 0..<count {
                    state.ids[(state.cursor + j) % k] = state.nextID
                    state.nextID += 1
                }
                state.cursor = (state.cursor + count) % k
            }
        }
        .supervise { state in
            Supervision { _ in
                var keep: Keep<Action> = []
                keep.reserveCapacity(state.ids.count)
                for i in state.ids.indices {
                    keep.append(
                        Channel(id: state.ids[i], lifetime: .ephemeral(resetKey: state.resetKeys[i])) { _ in
                            .cancelOnly {}
                        })
                }
                return keep
            }
        }
}
