package import RexCluster
import RexControl

/// The part of a node's state that survives its process: what operators set, as a fold of the
/// operator actions it accepted.
///
/// Feeds and follows (topic and peer) are the operator's entirely. Peers are the operator's
/// changes to the configured ones (the cluster file or `--peer`): peers added and peers removed,
/// so a restart with a new cluster file still brings in its new members while an operator's
/// `remove-peer` stays removed. Counters (`count`, `gaps`, sequences), peer status and the
/// clock are live-only: they start over with the process, as the new epoch tells followers.
public struct DurableState: Sendable, Equatable {
    /// The operator actions accepted, last per key.
    package private(set) var fold = OperatorActionFold(NodeFeature.operatorActions)

    public init() {}

    /// The durable state holding what `fold` folded.
    package init(_ fold: OperatorActionFold<NodeAction, NodeState>) {
        self.fold = fold
    }

    /// Folds one accepted action in (actions that are not journaled change nothing).
    public mutating func apply(_ action: NodeAction) { fold.apply(action) }

    /// The keys it holds (removals remembered count too).
    package var count: Int { fold.count }

    /// Room for `more` keys of `resource` at once.
    package mutating func reserveCapacity(_ more: Int, in resource: OperatorResource<NodeState>) {
        fold.reserveCapacity(more, in: resource)
    }

    /// Actions that rebuild this state on a configured node, in an order that never passes a
    /// limit the live node kept: peers, follows (their peers known by then) and feeds, each
    /// resource's removals before its puts, each group sorted by key.
    public var actions: [NodeAction] { fold.actions }

    /// The node state this durable state gives `initial` (the configured state): every action
    /// of `actions` through the node's own reducer, which applies the limits in force now (an
    /// entry beyond a lowered limit is counted in `refused`, as live). Its follows are marked
    /// `restoredAtStart`: their channels open at once, without the follow settle.
    public func restore(onto initial: NodeState) -> NodeState {
        var state = initial
        let limits = initial.settings.limits
        let catalog = fold.catalog
        // Within the limits no entry can be refused, so order inside a group does not matter and
        // 100,000 follows need no sort; past one (a limit lowered since), the sorted order decides
        // which entries stay, the same on every restart.
        let fits = catalog.resources.allSatisfy { resource in
            resource.count(initial) + fold.puts(of: resource).count <= resource.limit(limits)
        }
        guard fits else {
            for action in actions { NodeFeature.reduce(action, &state) }
            FollowFeature.markRestored(&state.follows)
            return state
        }
        for resource in catalog.resources {
            for action in fold.removals(of: resource) { NodeFeature.reduce(action, &state) }
            if resource.noun == NodeFeature.Resources.follows.noun, state.follows.isEmpty {
                restoreFollows(into: &state)
                continue
            }
            for action in fold.puts(of: resource) { NodeFeature.reduce(action, &state) }
            if resource.noun == NodeFeature.Resources.follows.noun { FollowFeature.markRestored(&state.follows) }
        }
        return state
    }

    /// The follows into a state that has none yet (a node's configured state never has), within
    /// the limit: each built as the reducer's `follow` builds a new one (its peer's endpoint
    /// resolved from the peers restored before) and marked restored as it is inserted. One pass
    /// and no reducer call per follow, and no change-log entry per name: the follows' keyed lift
    /// walks every follow on its first update, so a log of 100,000 names would go unread.
    private func restoreFollows(into state: inout NodeState) {
        let follows = fold.puts(of: NodeFeature.Resources.follows)
        state.follows.reserveCapacity(follows.count)
        for case .follow(let name, let topic, let from) in follows {
            var follow = Follow(topic: topic, from: from, endpoint: from.flatMap { state.peers[$0]?.reachableEndpoint })
            follow.restoredAtStart = true
            state.follows[name] = follow
            // The reducer keeps this index for every follow it adds; a restore that bypasses the
            // reducer must too, or a moved peer would not re-target its restored follows.
            state.followsByPeer.move(name, from: nil, to: from)
        }
        // The stamp moves as the reducer's would (one bump per follow).
        state.revisions.follows &+= UInt64(follows.count)
    }
}
