public import RexCluster
public import RexControl
public import SwiftRex

/// A feature that is not the feeds one: marks by key, set and cleared by operators, journaled.
/// Small on purpose — it proves the runtime hosts what it is given, not what it was built with.
public enum Tally: ClusterFeature {
    public enum Action: Sendable, Equatable {
        case mark(String)
        case clear(String)
    }

    public struct State: Codable, Sendable, Equatable {
        public var node: String
        public var marked: Set<String> = []

        public init(node: String, marked: Set<String> = []) {
            self.node = node
            self.marked = marked
        }
    }

    public static let identity = FeatureIdentity(name: "tally", version: "3")

    public static var behavior: Behavior<Action, State, ClusterEnvironment> {
        .reduce { action, state in
            switch action {
            case .mark(let key): state.marked.insert(key)
            case .clear(let key): state.marked.remove(key)
            }
        }
    }

    static let marks = OperatorResource<State>(
        noun: "marks", verb: "holds", limitFlag: "--max-feeds", limit: \.maxFeeds, count: { $0.marked.count },
        contains: { $0.marked.contains($1) }, keys: { Array($0.marked) })

    public static let operatorActions = OperatorActionCatalog<Action, State>(
        [
            OperatorActionDescription(
                type: "mark", fields: [ActionField("key", .name)], journal: JournalTags(1), change: .puts(marks),
                make: { .mark($0[0]!) }, values: { if case .mark(let key) = $0 { [key] } else { nil } }),
            OperatorActionDescription(
                type: "clear", fields: [ActionField("key", .name)], journal: JournalTags(2), change: .removes(marks),
                make: { .clear($0[0]!) }, values: { if case .clear(let key) = $0 { [key] } else { nil } }),
        ], resources: [marks])

    public static func initialState(_ node: NodeStart) -> State { State(node: node.id) }

    public static func restore(_ accepted: OperatorActionFold<Action, State>, onto initial: State) -> State {
        accepted.actions.reduce(into: initial) { state, action in
            if case .mark(let key) = action { state.marked.insert(key) }
        }
    }
}
