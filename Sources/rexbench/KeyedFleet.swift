import SwiftRex

/// The reconcile workload over a dictionary (`liftCollection(…, stateDictionary:, changes:)`, the
/// keyed lift a node's follows use): K members keyed by id, each with one ephemeral channel
/// memoised on its reset key, the reducer recording every key it touches. `rexbench
/// --profile-reconcile K … keyed` measures its first walk (the store's first cycle) and churn.
enum KeyedFleet {
    struct State: Sendable {
        var members: [Int: MemoFleet.Member]
        /// The keys in churn order (the dictionary's own order moves as it changes).
        var order: [Int]
        var changes = ElementChanges<Int>(capacity: 16_384)
        var cursor = 0
        var nextID: Int

        init(count: Int) {
            members = Dictionary(uniqueKeysWithValues: (0..<count).map { ($0, MemoFleet.Member(id: $0, resetKey: 0)) })
            order = Array(0..<count)
            nextID = count
        }
    }

    static let behavior = Behavior<Fleet.Action, State, Void>
        .reduce { action, state in
            let k = state.order.count
            guard k > 0 else { return }
            switch action {
            case .touch:
                break
            case .rekey(let count):
                for j in 0..<count {
                    let id = state.order[(state.cursor + j) % k]
                    state.members[id]?.resetKey &+= 1
                    state.changes.record(id)
                }
                state.cursor = (state.cursor + count) % k
            case .replace(let count):
                for j in 0..<count {
                    let slot = (state.cursor + j) % k
                    let old = state.order[slot]
                    state.members[old] = nil
                    state.changes.record(old)
                    let id = state.nextID
                    state.nextID += 1
                    state.members[id] = MemoFleet.Member(id: id, resetKey: 0)
                    state.changes.record(id)
                    state.order[slot] = id
                }
                state.cursor = (state.cursor + count) % k
            }
        }
        .combined(
            with: MemoFleet.member.liftCollection(
                action: { (_: Fleet.Action) in nil }, embed: { _, action in action }, stateDictionary: \State.members,
                changes: \State.changes
            ))
}
