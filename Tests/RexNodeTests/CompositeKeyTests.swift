import RexControl
import Testing

@testable import RexCluster

/// Keys made of two fields (a member of a room): the durable fold keeps one entry per pair and
/// admission counts pairs, where a key of one field would let `join(r, bob)` replace `join(r, ann)`.
@Suite struct CompositeKeyTests {
    enum Action: Sendable, Equatable {
        case join(room: String, member: String)
        case leave(room: String, member: String)
    }

    /// Rooms and their members.
    typealias State = [String: Set<String>]

    static let memberships = OperatorResource<State>(
        noun: "memberships", verb: "holds", limitFlag: "--max-feeds", limit: \.maxFeeds,
        count: { $0.values.reduce(0) { $0 + $1.count } }, contains: { keys($0).contains($1) }, keys: keys)

    static func keys(_ state: State) -> [String] {
        state.flatMap { room, members in members.map { KeyChange<State>.compositeKey([room, $0]) } }
    }

    static let catalog = OperatorActionCatalog<Action, State>(
        [
            OperatorActionDescription(
                type: "join", fields: [ActionField("room", .name), ActionField("member", .name)], journal: JournalTags(1),
                change: .puts(memberships, keyFields: [0, 1]), make: { .join(room: $0[0]!, member: $0[1]!) },
                values: { if case .join(let room, let member) = $0 { [room, member] } else { nil } }),
            OperatorActionDescription(
                type: "leave", fields: [ActionField("room", .name), ActionField("member", .name)], journal: JournalTags(2),
                change: .removes(memberships, keyFields: [0, 1]), make: { .leave(room: $0[0]!, member: $0[1]!) },
                values: { if case .leave(let room, let member) = $0 { [room, member] } else { nil } }),
        ], resources: [memberships])

    @Test func theFoldKeepsTheLastActionPerPair() {
        var fold = OperatorActionFold(Self.catalog)
        for action in [Action.join(room: "r", member: "ann"), .join(room: "r", member: "bob"), .join(room: "s", member: "ann")] {
            fold.apply(action)
        }
        fold.apply(.leave(room: "s", member: "ann"))
        #expect(fold.count == 2)
        #expect(fold.actions == [.join(room: "r", member: "ann"), .join(room: "r", member: "bob")])
    }

    @Test func admissionCountsPairs() throws {
        let limits = NodeLimits(maxFeeds: 2)
        var ledger = AdmissionLedger(["r": ["ann"]], catalog: Self.catalog)
        try ledger.admit(.join(room: "r", member: "ann"), limits: limits, node: "n1")  // held: no new key
        try ledger.admit(.join(room: "s", member: "ann"), limits: limits, node: "n1")
        let error = #expect(throws: ControlError.self) { try ledger.admit(.join(room: "r", member: "bob"), limits: limits, node: "n1") }
        #expect(error?.code == .limitReached)
        try ledger.admit(.leave(room: "r", member: "ann"), limits: limits, node: "n1")
        try ledger.admit(.join(room: "r", member: "bob"), limits: limits, node: "n1")
    }

    @Test func noTwoListsOfValuesMakeTheSameKey() {
        #expect(KeyChange<State>.compositeKey(["ab", "c"]) != KeyChange<State>.compositeKey(["a", "bc"]))
        #expect(KeyChange<State>.compositeKey(["a:", "b"]) != KeyChange<State>.compositeKey(["a", ":b"]))
        #expect(KeyChange<State>.compositeKey(["é", "x"]) == "2:é1:x", "lengths in UTF-8 bytes")
    }
}
