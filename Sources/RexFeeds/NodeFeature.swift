public import RexCluster
import RexControl
public import SwiftRex

/// The node's behavior: feeds, peers, follows, publish and membership.
///
/// All of it is a function of `NodeState`: the reducer records what happened, and `supervise`
/// declares the channels the state implies — the engine opens, recreates and cancels sockets and
/// subscriptions to match.
public enum NodeFeature {
    /// The channel ids of the node (follows add `follow[<name>]` through the collection lift).
    package static let publisherID = ClusterChannels.publisherID
    package static let membershipID = ClusterChannels.membershipID
    /// A follow's channel id within its element scope, wrapped once (wrapping hashes the string).
    static let followKey = AnyHashableSendable("follow")
    package static func feedID(_ topic: String) -> String { "feed[\(topic)]" }
    package static func peerID(_ id: String) -> String { "peer[\(id)]" }

    /// The complete node behavior.
    public static var behavior: Behavior<NodeAction, NodeState, ClusterEnvironment> {
        Behavior<NodeAction, NodeState, ClusterEnvironment>
            .reduce(reduce)
            .produce { action, context in
                switch action {
                case .publish(let topic, let payload):
                    return ClusterChannels.publish(topic: topic, value: payload)
                case .membershipTimer:
                    return ClusterChannels.membershipTick()
                default:
                    return .empty
                }
            }
            // Each group of channels is memoised on what it reads, so a membership report that
            // changes no connection, or a received message (which change statuses and counters
            // only), costs three comparisons and no reconcile: the id is fixed, the feeds
            // dictionary compares by identity while untouched, peers are guarded by the reducer's
            // revision and follows by its log.
            .supervise(on: \.id) { id in Supervision { env in fixedChannels(id: id, env) } }
            .supervise(on: \.feeds) { feeds in Supervision { env in feedChannels(feeds, env) } }
            .combined(
                with: Behavior<NodeAction, NodeState, ClusterEnvironment>
                    .supervise { state in Supervision { env in peerChannels(state.peers, env) } }
                    .memoisingSupervise(on: \.revisions.peers)
            )
            .combined(
                with: FollowFeature.behavior.liftCollection(
                    // Messages are recorded by `reduce`, which knows the node's limits; the lift
                    // gives each follow its channel, with ids scoped to its name.
                    action: { _ in nil },
                    embed: { name, event in
                        switch event {
                        case .messages(let messages): .received(name: name, messages: messages)
                        }
                    },
                    stateDictionary: \NodeState.follows,
                    // Keyed by name with the reducer's log of changed names: adding, removing or
                    // re-targeting k follows re-derives and diffs k channels, not every follow.
                    changes: \NodeState.revisions.followChanges
                ))
    }

    static func reduce(_ action: NodeAction, _ state: inout NodeState) {
        switch action {
        case .set(let topic, let value):
            guard Resources.feeds.hasRoom(for: topic, in: state, limits: state.settings.limits) else {
                state.refused += 1
                return
            }
            state.feeds[topic] = Feed(value: value)
        case .unset(let topic):
            state.feeds[topic] = nil
        case .follow(let name, let topic, let from):
            state.revisions.follows &+= 1
            state.revisions.followChanges.record(name)
            let endpoint = from.flatMap { state.peers[$0]?.reachableEndpoint }
            // Changed where it is stored (one lookup, no copy of the follow out and back in).
            if let index = state.follows.index(forKey: name) {
                state.followsByPeer.move(name, from: state.follows.values[index].from, to: from)
                state.follows.values[index].retarget(topic: topic, from: from, endpoint: endpoint)
            } else if !Resources.follows.hasRoom(for: name, in: state, limits: state.settings.limits) {
                state.refused += 1
            } else {
                state.follows[name] = Follow(topic: topic, from: from, endpoint: endpoint)
                state.followsByPeer.move(name, from: nil, to: from)
            }
        case .unfollow(let name):
            if let follow = state.follows.removeValue(forKey: name) {
                state.followsByPeer.remove(name, from: follow.from)
                state.revisions.follows &+= 1
                state.revisions.followChanges.record(name)
            }
        case .publish:
            break
        case .addPeer(let id, let endpoint):
            guard Resources.peers.hasRoom(for: id, in: state, limits: state.settings.limits) else {
                state.refused += 1
                return
            }
            if state.peers[id]?.endpoint != endpoint {
                state.peers[id] = Peer(endpoint: endpoint)
                state.revisions.peers &+= 1
            }
            resolveEndpoints(of: id, in: &state)
        case .removePeer(let id):
            if state.peers.removeValue(forKey: id) != nil { state.revisions.peers &+= 1 }
            resolveEndpoints(of: id, in: &state)
        case .received(let name, let messages):
            let limit = state.settings.limits.maxStreamsPerFollow
            state.follows[name]?.record(messages, streamLimit: limit)
        case .membershipTimer:
            break
        case .memberChanged(let id, let endpoint, let status, let incarnation, let atMs):
            recordMember(id, endpoint: endpoint, status: status, incarnation: incarnation, atMs: atMs, in: &state)
        }
    }

    /// A member's status from the membership: a peer first seen is added (within the limit),
    /// and its data-plane connection and `from` follows change only when it becomes or stops
    /// being connectable (dead or left) or moves to another publisher.
    private static func recordMember(
        _ id: String, endpoint: String, status: Peer.MembershipStatus, incarnation: UInt64, atMs: Int, in state: inout NodeState
    ) {
        guard id != state.id, !endpoint.isEmpty else { return }
        if state.peers[id] == nil {
            guard Resources.peers.hasRoom(for: id, in: state, limits: state.settings.limits) else {
                state.refused += 1
                return
            }
            state.peers[id] = Peer(endpoint: endpoint)
            state.revisions.peers &+= 1
        }
        let before = state.peers[id]!
        var peer = before
        peer.endpoint = endpoint
        peer.status = status.peerStatus
        peer.membership = status
        peer.incarnation = incarnation
        if status == .alive { peer.lastSeenMs = atMs }
        state.peers[id] = peer
        if before.isConnectable != peer.isConnectable || before.endpoint != endpoint || before.incarnation == nil {
            state.revisions.peers &+= 1
        }
        resolveEndpoints(of: id, in: &state)
    }

    /// Re-resolves the follows `from` `peer` (found through `followsByPeer`: O(its follows), not
    /// O(every follow)).
    private static func resolveEndpoints(of peer: String, in state: inout NodeState) {
        let endpoint = state.peers[peer]?.reachableEndpoint
        for name in state.followsByPeer[peer] where state.follows[name] != nil {
            if state.follows[name]!.endpoint != endpoint {
                state.follows[name]!.endpoint = endpoint
                state.follows[name]!.restoredAtStart = false
                state.revisions.follows &+= 1
                state.revisions.followChanges.record(name)
            }
        }
    }

    /// The channels every node keeps for its life: the publisher and the SWIM membership (none
    /// without `env.membership`: an in-memory store in tests).
    static func fixedChannels(id: String, _ env: ClusterEnvironment) -> Keep<NodeAction> {
        guard let membership = NodeChannels.swimMembership(env) else { return [NodeChannels.publisher(env)] }
        return [NodeChannels.publisher(env), membership]
    }

    /// One channel per feed, in topic order.
    static func feedChannels(_ feeds: [String: Feed], _ env: ClusterEnvironment) -> Keep<NodeAction> {
        feeds.keys.sorted().map { NodeChannels.feed(topic: $0, value: feeds[$0]!.value, env) }
    }

    /// One connection per connectable peer (see `Peer.isConnectable`), in id order.
    static func peerChannels(_ peers: [String: Peer], _ env: ClusterEnvironment) -> Keep<NodeAction> {
        peers.keys.sorted().filter { peers[$0]!.isConnectable }.map { NodeChannels.peer(id: $0, endpoint: peers[$0]!.endpoint, env) }
    }
}

/// The follows' change log, as the keyed lift reads it.
extension KeyChangeLog: ElementChangeLog {}

/// What happens to one follow.
package enum FollowEvent: Sendable, Equatable {
    /// Messages arrived, oldest first (see `NodeAction.received`).
    case messages([Received])
}

/// One follow's channel, lifted over `NodeState.follows` with element-scoped channel ids.
package enum FollowFeature {
    static var behavior: Behavior<FollowEvent, Follow, ClusterEnvironment> {
        Behavior<FollowEvent, Follow, ClusterEnvironment>
            // Memoised on what the channel reads: a received message (count, last value,
            // sequences) leaves the input equal, so the follow is not re-derived.
            .supervise(on: target) { target in
                Supervision { env in
                    // A follow from a peer that is not known yet waits for it: no channel.
                    guard let target else { return [] }
                    return [NodeChannels.follow(target.key, settles: !target.restoredAtStart, env)]
                }
            }
    }

    /// What a follow's channel is made of, and whether it is still the one restored at start.
    /// The settle choice is not part of the channel's reset key: a restored follow followed anew
    /// with the same topic keeps its live channel; only a new key recreates it (after settle).
    struct Target: Equatable {
        let key: FollowKey
        let restoredAtStart: Bool
    }

    /// A follow's target: its topic and the dedicated endpoint, if any; nil while it waits for a
    /// peer that is not known yet.
    static func target(_ follow: Follow) -> Target? {
        if follow.from != nil, follow.endpoint == nil { return nil }
        return Target(
            key: FollowKey(topic: follow.topic, endpoint: follow.from == nil ? nil : follow.endpoint),
            restoredAtStart: follow.restoredAtStart
        )
    }

    /// Marks every follow of a state just restored from the node's durable state (see
    /// `Follow.restoredAtStart`): their channels open at once instead of after the follow settle.
    static func markRestored(_ follows: inout [String: Follow]) {
        for index in follows.indices { follows.values[index].restoredAtStart = true }
    }
}
