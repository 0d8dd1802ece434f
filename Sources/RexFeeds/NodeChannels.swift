import RexCluster
import RexControl
import SwiftRex

/// The channels a node's state implies, written against `NodeTransport` and the store's clock.
/// Every body and handler runs on the store's executor (the reactor thread in a running node).
package enum NodeChannels {
    /// The publisher: `publish` actions broadcast `Outgoing` messages into it (not deduplicated).
    static func publisher(_ env: NodeEnvironment) -> Channel<NodeAction> {
        Channel(
            id: NodeFeature.publisherID,
            receiving: { _ in
                let publish = env.transport.publish
                return ChannelHandler(receive: { (message: Outgoing) in publish(message.topic, message.value) }, cancel: {})
            })
    }

    /// One feed: the latest value, deduplicated, at most one message per interval, the last value
    /// always sent — and kept for late joiners' snapshot requests.
    static func feed(topic: String, value: String, _ env: NodeEnvironment) -> Channel<NodeAction> {
        Channel(
            id: NodeFeature.feedID(topic),
            broadcasting: .onChange(value),
            delivery: .throttle(env.settings.feedInterval, latest: true)
        ) { _ in
            let transport = env.transport
            return ChannelHandler(
                receive: { (value: String) in transport.publishRetained(topic, value) },
                cancel: { transport.forgetRetained(topic) }
            )
        }
    }

    /// The shared subscriber's connection to one peer; a new endpoint reconnects.
    static func peer(id: String, endpoint: String, _ env: NodeEnvironment) -> Channel<NodeAction> {
        Channel(id: NodeFeature.peerID(id), lifetime: .ephemeral(resetKey: endpoint)) { _ in
            let transport = env.transport
            do {
                try transport.connect(endpoint)
            } catch {
                env.log.error("peer_connect_failed", ["peer": id, "endpoint": endpoint, "error": "\(error)"])
                return .cancelOnly {}
            }
            env.log.info("peer_connected", ["peer": id, "endpoint": endpoint])
            return .cancelOnly {
                transport.disconnect(endpoint)
                env.log.info("peer_disconnected", ["peer": id, "endpoint": endpoint])
            }
        }
    }

    /// One follow. Without an endpoint: a reference-counted subscription on the shared socket
    /// (open = SUBSCRIBE, cancel = UNSUBSCRIBE). With one: a dedicated socket to that peer.
    /// Its reset key is the topic and endpoint, so changing either recreates it (after settle).
    /// Without `settles` (a follow restored at start) its first open does not wait the settle.
    static func follow(_ key: FollowKey, settles: Bool = true, _ env: NodeEnvironment) -> Channel<FollowEvent> {
        let topic = key.topic
        let endpoint = key.endpoint
        let settle = settles ? env.settings.followSettle : nil
        // A shared follow's reset key is its topic: a string is held and compared inline, where a
        // `FollowKey` was boxed (an allocation per change). A dedicated one keeps the endpoint in
        // its key; the two kinds never compare equal, so moving between them recreates.
        let lifetime: ChannelLifetime =
            endpoint == nil ? .ephemeral(resetKey: topic, settle: settle) : .ephemeral(resetKey: key, settle: settle)
        return Channel(id: NodeFeature.followKey, lifetime: lifetime) { dispatch in
            // The cancel captures the one closure it calls, not the transport: a copy of all its
            // closures in every live follow's cancel cost about 200 bytes and 13 retains.
            let pattern = TopicPattern(topic)
            let deliver: @Sendable ([Received]) -> Void = { messages in dispatch(.messages(messages)) }
            guard let endpoint else {
                let route = env.transport.addRoute(pattern, true, deliver)
                let removeRoute = env.transport.removeRoute
                return .cancelOnly { removeRoute(route) }
            }
            do {
                let route = try env.transport.openDedicated(endpoint, pattern, deliver)
                let closeDedicated = env.transport.closeDedicated
                return .cancelOnly { closeDedicated(route) }
            } catch {
                env.log.error("follow_socket_failed", ["topic": topic, "endpoint": endpoint, "error": "\(error)"])
                return .cancelOnly {}
            }
        }
    }
}

/// What recreates a follow's channel.
package struct FollowKey: Hashable, Sendable, CustomStringConvertible {
    let topic: String
    let endpoint: String?

    package var description: String { endpoint.map { "\(topic)@\($0)" } ?? topic }
}
