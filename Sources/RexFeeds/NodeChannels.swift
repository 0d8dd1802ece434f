import RexCluster
import RexControl
import SwiftRex

/// The channels a feeds node's state implies: the cluster's channels (``ClusterChannels``) under
/// the node's ids. Every body and handler runs on the store's executor (the reactor thread in a
/// running node).
package enum NodeChannels {
    /// The publisher: `publish` actions broadcast their message into it (not deduplicated).
    static func publisher(_ env: ClusterEnvironment) -> Channel<NodeAction> {
        ClusterChannels.publisher(env)
    }

    /// One feed: the latest value, deduplicated, at most one message per interval, the last value
    /// always sent — and kept for late joiners' snapshot requests.
    static func feed(topic: String, value: String, _ env: ClusterEnvironment) -> Channel<NodeAction> {
        ClusterChannels.retained(id: NodeFeature.feedID(topic), topic: topic, value: value, env)
    }

    /// The shared subscriber's connection to one peer; a new endpoint reconnects.
    static func peer(id: String, endpoint: String, _ env: ClusterEnvironment) -> Channel<NodeAction> {
        ClusterChannels.peer(id: NodeFeature.peerID(id), member: id, endpoint: endpoint, env)
    }

    /// One follow: a reference-counted subscription on the shared socket without an endpoint, a
    /// dedicated socket to that peer with one. Its reset key is the topic and endpoint, so
    /// changing either recreates it (after settle). Without `settles` (a follow restored at
    /// start) its first open does not wait the settle.
    static func follow(_ key: FollowKey, settles: Bool = true, _ env: ClusterEnvironment) -> Channel<FollowEvent> {
        ClusterChannels.follow(id: NodeFeature.followKey, topic: key.topic, from: key.endpoint, settles: settles, env) { .messages($0) }
    }
}
