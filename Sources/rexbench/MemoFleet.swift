import SwiftRex

/// The reconcile benchmark's workload again, written with memoised supervise: the same K
/// ephemeral channels and the same actions as `Fleet`, but each member's channel is declared by
/// a per-element supervise memoised on its reset key, lifted over the members with the change
/// log the reducer keeps (`ElementChanges`).
///
/// So `touch` (which bumps an unsupervised counter) records nothing: the cycle costs one
/// revision comparison. A churn cycle re-evaluates and diffs only the members it recorded.
enum MemoFleet {
    struct Member: Identifiable, Sendable {
        var id: Int
        var resetKey: Int
    }

    struct State: Sendable {
        var members: [Member]
        /// The members re-keyed or replaced (room for the 10 % churn of K = 100,000 per batch).
        var changes = ElementChanges<Int>(capacity: 16_384)
        /// Bumped by every action (what `touch` changes): no supervise reads it.
        var revision = 0
        var cursor = 0
        var nextID: Int

        init(count: Int) {
            members = (0..<count).map { Member(id: $0, resetKey: 0) }
            nextID = count
        }
    }

    static let member = Behavior<Fleet.Action, Member, Void>
        .supervise(on: { $0.resetKey }) { resetKey in
            Supervision { _ in [Channel(id: 0, lifetime: .ephemeral(resetKey: resetKey)) { _ in .cancelOnly {} }] }
        }

    static let behavior = Behavior<Fleet.Action, State, Void>
        .reduce { action, state in
            state.revision &+= 1
            let k = state.members.count
            guard k > 0 else { return }
            switch action {
            case .touch:
                break
            case .rekey(let count):
                for j in 0..<count {
                    state.members[(state.cursor + j) % k].resetKey &+= 1
                    state.changes.record(state.members[(state.cursor + j) % k].id)
                }
                state.cursor = (state.cursor + count) % k
            case .replace(let count):
                for j in 0..<count {
                    state.changes.record(state.members[(state.cursor + j) % k].id)
                    state.members[(state.cursor + j) % k].id = state.nextID
                    state.changes.record(state.nextID)
                    state.nextID += 1
                }
                state.cursor = (state.cursor + count) % k
            }
        }
        .combined(
            with: member.liftCollection(
                action: { (_: Fleet.Action) in nil }, embed: { _, action in action }, stateCollection: \State.members,
                changes: \State.changes
            ))
}
