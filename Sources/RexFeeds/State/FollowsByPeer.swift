import RexCluster
import RexControl

/// The names of the follows `from` each peer, kept by the node's reducer beside
/// `NodeState.follows`, so a membership report on one peer re-resolves that peer's follows
/// without scanning every follow (an O(F) walk per status change: 100,000 follows and SWIM's
/// churn made it the reducer's largest cost per report).
///
/// Derived data: not encoded (a decoded state rebuilds it from its follows). Two indexes compare
/// by what they hold, so two states with the same follows, each kept by the reducer, are equal
/// whatever order built them, and a state whose index is out of step with its follows is not
/// equal to one whose index is right.
public struct FollowsByPeer: Sendable, Equatable {
    private var names: [String: Set<String>] = [:]

    public init() {}

    /// The index of `follows`, built in one pass.
    public init(indexing follows: [String: Follow]) {
        for (name, follow) in follows { move(name, from: nil, to: follow.from) }
    }

    /// The follows `from` `peer` (empty for a peer nobody follows from).
    public subscript(peer: String) -> Set<String> { names[peer] ?? [] }

    /// The peers some follow is `from`, with their follows.
    public var all: [String: Set<String>] { names }

    /// Records that follow `name` moved from `old` to `new` (nil: any peer); no change when equal.
    public mutating func move(_ name: String, from old: String?, to new: String?) {
        guard old != new else { return }
        if let old { remove(name, from: old) }
        if let new { names[new, default: []].insert(name) }
    }

    /// Forgets follow `name` of `peer` (nil: nothing to forget).
    public mutating func remove(_ name: String, from peer: String?) {
        guard let peer, names[peer]?.remove(name) != nil, names[peer]?.isEmpty == true else { return }
        names[peer] = nil
    }
}
