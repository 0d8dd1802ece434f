public import RexCluster
public import RexControl

extension NodeFeature: ClusterFeature {
    /// The feeds-and-follows feature, at the version of its actions and state document.
    public static let identity = FeatureIdentity(name: "feeds", version: "1")

    /// The node's feeds, follows and peers, as operators own them.
    package enum Resources {
        static let feeds = OperatorResource<NodeState>(
            noun: "feeds", verb: "holds", limitFlag: "--max-feeds", limit: \.maxFeeds, count: { $0.feeds.count },
            contains: { $0.feeds[$1] != nil }, keys: { Array($0.feeds.keys) })
        package static let follows = OperatorResource<NodeState>(
            noun: "follows", verb: "holds", limitFlag: "--max-follows", limit: \.maxFollows, count: { $0.follows.count },
            contains: { $0.follows[$1] != nil }, keys: { Array($0.follows.keys) })
        /// A configured peer an operator removed stays removed across restarts; the members the
        /// membership reports enter without an operator and take room too.
        static let peers = OperatorResource<NodeState>(
            noun: "peers", verb: "knows", limitFlag: "--max-peers", keepsRemovals: true, limit: \.maxPeers,
            count: { $0.peers.count }, contains: { $0.peers[$1] != nil }, keys: { Array($0.peers.keys) },
            keysFromElsewhere: { state in state.peers.compactMap { $0.value.membership == nil ? nil : $0.key } })
    }

    /// The seven operator actions (docs/protocol.md, "dispatch").
    public static let operatorActions = OperatorActionCatalog<NodeAction, NodeState>(
        [
            OperatorActionDescription(
                type: "set", fields: [ActionField("topic", .ownTopic), ActionField("value", .value)], journal: JournalTags(1),
                change: .puts(Resources.feeds), make: { .set(topic: $0[0]!, value: $0[1]!) },
                values: { if case .set(let topic, let value) = $0 { [topic, value] } else { nil } }),
            OperatorActionDescription(
                type: "unset", fields: [ActionField("topic", .topic)], journal: JournalTags(2), change: .removes(Resources.feeds),
                make: { .unset(topic: $0[0]!) }, values: { if case .unset(let topic) = $0 { [topic] } else { nil } }),
            OperatorActionDescription(
                type: "follow",
                fields: [ActionField("name", .name), ActionField("topic", .topic), ActionField("from", .name, optional: true)],
                journal: JournalTags(3, withOptionalField: 4), change: .puts(Resources.follows),
                make: { .follow(name: $0[0]!, topic: $0[1]!, from: $0[2]) },
                values: { if case .follow(let name, let topic, let from) = $0 { [name, topic, from] } else { nil } }),
            OperatorActionDescription(
                type: "unfollow", fields: [ActionField("name", .name)], journal: JournalTags(5), change: .removes(Resources.follows),
                make: { .unfollow(name: $0[0]!) }, values: { if case .unfollow(let name) = $0 { [name] } else { nil } }),
            OperatorActionDescription(
                type: "publish", fields: [ActionField("topic", .ownTopic), ActionField("payload", .value)], journal: nil,
                change: nil, make: { .publish(topic: $0[0]!, payload: $0[1]!) },
                values: { if case .publish(let topic, let payload) = $0 { [topic, payload] } else { nil } }),
            OperatorActionDescription(
                type: "addPeer", fields: [ActionField("id", .name), ActionField("endpoint", .endpoint)], journal: JournalTags(6),
                change: .puts(Resources.peers), make: { .addPeer(id: $0[0]!, endpoint: $0[1]!) },
                values: { if case .addPeer(let id, let endpoint) = $0 { [id, endpoint] } else { nil } }),
            OperatorActionDescription(
                type: "removePeer", fields: [ActionField("id", .name)], journal: JournalTags(7), change: .removes(Resources.peers),
                make: { .removePeer(id: $0[0]!) }, values: { if case .removePeer(let id) = $0 { [id] } else { nil } }),
        ],
        // Peers first: a restored follow from a peer resolves its endpoint.
        resources: [Resources.peers, Resources.follows, Resources.feeds], bulkResource: Resources.follows)
}
