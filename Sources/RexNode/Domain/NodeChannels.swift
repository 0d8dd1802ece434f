import SwiftRex
import ZMQ

/// The channels a node's state implies. Every body runs on the reactor thread (the store's
/// executor), so touching the reactor-bound sockets there is safe.
enum NodeChannels {
    /// The publisher: `publish` actions broadcast `Outgoing` messages into it (not deduplicated).
    static func publisher(_ env: NodeEnvironment) -> Channel<NodeAction> {
        Channel(id: NodeFeature.publisherID, receiving: { _ in
            let io = env.io.value
            return ChannelHandler(receive: { (message: Outgoing) in io.publish(topic: message.topic, value: message.value) }, cancel: {})
        })
    }

    /// One feed: the latest value, deduplicated, at most one message per interval, the last value
    /// always sent — and replayed to each peer that subscribes later.
    static func feed(topic: String, value: String, _ env: NodeEnvironment) -> Channel<NodeAction> {
        Channel(
            id: NodeFeature.feedID(topic),
            broadcasting: .onChange(value),
            delivery: .throttle(env.settings.feedInterval, latest: true)
        ) { _ in
            let io = env.io.value
            return ChannelHandler(
                receive: { (value: String) in io.publishRetained(topic: topic, value: value) },
                cancel: { io.forgetRetained(topic: topic) }
            )
        }
    }

    /// The shared subscriber's connection to one peer; a new endpoint reconnects.
    static func peer(id: String, endpoint: String, _ env: NodeEnvironment) -> Channel<NodeAction> {
        Channel(id: NodeFeature.peerID(id), lifetime: .ephemeral(resetKey: endpoint)) { _ in
            let io = env.io.value
            do {
                try io.connect(endpoint)
            } catch {
                env.log.error("peer_connect_failed", ["peer": id, "endpoint": endpoint, "error": "\(error)"])
                return .cancelOnly {}
            }
            env.log.info("peer_connected", ["peer": id, "endpoint": endpoint])
            return .cancelOnly {
                io.disconnect(endpoint)
                env.log.info("peer_disconnected", ["peer": id, "endpoint": endpoint])
            }
        }
    }

    /// The heartbeat: publishes `$hb.<id>` every interval and ticks membership.
    static func heartbeat(nodeID: String, _ env: NodeEnvironment) -> Channel<NodeAction> {
        Channel(id: NodeFeature.heartbeatID) { dispatch in
            let io = env.io.value
            let topic = WireMessage.heartbeatPrefix + nodeID
            let timer = env.reactor.schedule(after: .zero, every: env.settings.heartbeatInterval) {
                io.publish(topic: topic, value: "")
                dispatch(.tick(nowMs: env.nowMs))
            }
            return .cancelOnly { env.reactor.cancelTimer(timer) }
        }
    }

    /// Every node follows the heartbeat prefix on its shared subscriber.
    static func membership(_ env: NodeEnvironment) -> Channel<NodeAction> {
        Channel(id: NodeFeature.membershipID) { dispatch in
            let io = env.io.value
            // Heartbeats are not retained: no snapshot to ask for.
            let route = io.addRoute(.prefix(WireMessage.heartbeatPrefix), snapshot: false) { messages in
                for message in messages where isOwnHeartbeat(message) {
                    dispatch(.heartbeat(from: message.sender, epoch: message.epoch, sequence: message.sequence, atMs: env.nowMs))
                }
            }
            return .cancelOnly { io.removeRoute(route) }
        }
    }

    /// A heartbeat counts for its sender only on that sender's own topic, `$hb.<sender>`.
    static func isOwnHeartbeat(_ message: Received) -> Bool {
        let topic = message.topic.utf8
        let prefix = WireMessage.heartbeatPrefix.utf8
        return topic.count == prefix.count + message.sender.utf8.count
            && topic.starts(with: prefix) && topic.dropFirst(prefix.count).elementsEqual(message.sender.utf8)
    }

    /// One follow. Without an endpoint: a reference-counted subscription on the shared socket
    /// (open = SUBSCRIBE, cancel = UNSUBSCRIBE). With one: a dedicated socket to that peer.
    /// Its reset key is the topic and endpoint, so changing either recreates it (after settle).
    static func follow(topic: String, endpoint: String?, _ env: NodeEnvironment) -> Channel<FollowEvent> {
        Channel(
            id: "follow",
            lifetime: .ephemeral(resetKey: FollowKey(topic: topic, endpoint: endpoint), settle: env.settings.followSettle)
        ) { dispatch in
            let io = env.io.value
            let pattern = TopicPattern(topic)
            let deliver: ([Received]) -> Void = { messages in dispatch(.messages(messages)) }
            guard let endpoint else {
                let route = io.addRoute(pattern, deliver)
                return .cancelOnly { io.removeRoute(route) }
            }
            do {
                let socket = try io.openDedicated(endpoint: endpoint, pattern: pattern, deliver)
                return .cancelOnly { io.closeDedicated(socket) }
            } catch {
                env.log.error("follow_socket_failed", ["topic": topic, "endpoint": endpoint, "error": "\(error)"])
                return .cancelOnly {}
            }
        }
    }
}

/// What recreates a follow's channel.
struct FollowKey: Hashable, Sendable, CustomStringConvertible {
    let topic: String
    let endpoint: String?

    var description: String { endpoint.map { "\(topic)@\($0)" } ?? topic }
}
