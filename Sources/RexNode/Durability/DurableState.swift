public import RexControl

/// The part of a node's state that survives its process: what operators set, as a fold of the
/// operator actions it accepted.
///
/// Feeds and follows (topic and peer) are the operator's entirely. Peers are the operator's
/// changes to the configured ones (the cluster file or `--peer`): peers added and peers removed,
/// so a restart with a new cluster file still brings in its new members while an operator's
/// `remove-peer` stays removed. Counters (`count`, `gaps`, sequences), peer status and the
/// clock are live-only: they start over with the process, as the new epoch tells followers.
public struct DurableState: Sendable, Equatable {
    public struct FollowSpec: Sendable, Equatable {
        public var topic: String
        public var from: String?
    }

    public var feeds: [String: String] = [:]
    public var follows: [String: FollowSpec] = [:]
    public var addedPeers: [String: String] = [:]
    public var removedPeers: Set<String> = []

    public init() {}

    /// Folds one accepted action in (actions that are not durable change nothing).
    public mutating func apply(_ action: NodeAction) {
        switch action {
        case .set(let topic, let value): feeds[topic] = value
        case .unset(let topic): feeds[topic] = nil
        case .follow(let name, let topic, let from): follows[name] = FollowSpec(topic: topic, from: from)
        case .unfollow(let name): follows[name] = nil
        case .addPeer(let id, let endpoint):
            addedPeers[id] = endpoint
            removedPeers.remove(id)
        case .removePeer(let id):
            addedPeers[id] = nil
            removedPeers.insert(id)
        case .publish, .received, .membershipTimer, .memberChanged: break
        }
    }

    /// Actions that rebuild this state on a configured node, in an order that never passes a
    /// limit the live node kept: removals first, then peers, follows (their peers known by
    /// then) and feeds; each group sorted, so a snapshot's bytes depend on the state alone.
    public var actions: [NodeAction] {
        var actions: [NodeAction] = []
        actions.reserveCapacity(removedPeers.count + addedPeers.count + follows.count + feeds.count)
        for id in removedPeers.sorted() { actions.append(.removePeer(id: id)) }
        for (id, endpoint) in addedPeers.sorted(by: { $0.key < $1.key }) { actions.append(.addPeer(id: id, endpoint: endpoint)) }
        for (name, follow) in follows.sorted(by: { $0.key < $1.key }) {
            actions.append(.follow(name: name, topic: follow.topic, from: follow.from))
        }
        for (topic, value) in feeds.sorted(by: { $0.key < $1.key }) { actions.append(.set(topic: topic, value: value)) }
        return actions
    }

    /// The node state this durable state gives `initial` (the configured state): every action
    /// of `actions` through the node's own reducer, which applies the limits in force now (an
    /// entry beyond a lowered limit is counted in `refused`, as live). Its follows are marked
    /// `restoredAtStart`: their channels open at once, without the follow settle.
    public func restore(onto initial: NodeState) -> NodeState {
        var state = initial
        let limits = initial.settings.limits
        // Within the limits no entry can be refused, so order inside a group does not matter and
        // 100,000 follows need no sort; past one (a limit lowered since), the sorted order decides
        // which entries stay, the same on every restart.
        guard follows.count <= limits.maxFollows, feeds.count <= limits.maxFeeds,
            initial.peers.count + addedPeers.count <= limits.maxPeers
        else {
            for action in actions { NodeFeature.reduce(action, &state) }
            FollowFeature.markRestored(&state.follows)
            return state
        }
        for id in removedPeers { NodeFeature.reduce(.removePeer(id: id), &state) }
        for (id, endpoint) in addedPeers { NodeFeature.reduce(.addPeer(id: id, endpoint: endpoint), &state) }
        if state.follows.isEmpty {
            restoreFollows(into: &state)
        } else {
            state.follows.reserveCapacity(state.follows.count + follows.count)
            for (name, follow) in follows { NodeFeature.reduce(.follow(name: name, topic: follow.topic, from: follow.from), &state) }
            FollowFeature.markRestored(&state.follows)
        }
        state.feeds.reserveCapacity(state.feeds.count + feeds.count)
        for (topic, value) in feeds { NodeFeature.reduce(.set(topic: topic, value: value), &state) }
        return state
    }

    /// The follows into a state that has none yet (a node's configured state never has), within
    /// the limit: each built as the reducer's `follow` builds a new one (its peer's endpoint
    /// resolved from the peers restored before) and marked restored as it is inserted. One pass
    /// and no reducer call per follow, and no change-log entry per name: the follows' keyed lift
    /// walks every follow on its first update, so a log of 100,000 names would go unread (the
    /// reducer's way, then a marking pass: ~16 % of the reactor's samples in a 100,000-follow
    /// restart; this: ~7 %).
    private func restoreFollows(into state: inout NodeState) {
        state.follows.reserveCapacity(follows.count)
        for (name, spec) in follows {
            var follow = Follow(topic: spec.topic, from: spec.from, endpoint: spec.from.flatMap { state.peers[$0]?.reachableEndpoint })
            follow.restoredAtStart = true
            state.follows[name] = follow
            // The reducer keeps this index for every follow it adds; a restore that bypasses the
            // reducer must too, or a moved peer would not re-target its restored follows.
            state.followsByPeer.move(name, from: nil, to: spec.from)
        }
        // The stamp moves as the reducer's would (one bump per follow).
        state.revisions.follows &+= UInt64(follows.count)
    }
}
