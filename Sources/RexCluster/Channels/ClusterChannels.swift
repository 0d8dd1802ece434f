public import SwiftRex

/// The cluster as channels: what a feature declares in its `supervise` to publish, to follow
/// other members, to stay connected to them, and to run the membership. The store's engine opens
/// each one while the state implies it and cancels it when the state stops implying it; every
/// body and handler runs on the store's executor (the reactor thread in a running node).
///
/// ```swift
/// .supervise { state in
///     Supervision { env in
///         [ClusterChannels.publisher(env)]
///             + state.rooms.keys.sorted().map { room in
///                 ClusterChannels.follow(id: "room[\(room)]", topic: "presence.\(room).*", env) { .presence($0) }
///             }
///     }
/// }
/// ```
public enum ClusterChannels {
    /// The publisher's channel id.
    public static let publisherID = "pub"
    /// The membership's channel id.
    public static let membershipID = "membership"
    /// The ids wrapped once: every publish and membership tick is broadcast to one, and wrapping
    /// hashes the string.
    @usableFromInline static let publisherKey = AnyHashableSendable(publisherID)
    @usableFromInline static let membershipKey = AnyHashableSendable(membershipID)

    /// The node's publisher, which ``publish(topic:value:)`` effects go out through (one
    /// message each, not deduplicated, not kept for late joiners).
    public static func publisher<Action>(_ env: ClusterEnvironment) -> Channel<Action> {
        Channel(
            id: publisherID,
            receiving: { _ in
                let publish = env.transport.publish
                return ChannelHandler(receive: { (message: Outgoing) in publish(message.topic, message.value) }, cancel: {})
            })
    }

    /// Sends one message on the node's publisher (declared with ``publisher(_:)``).
    @inlinable
    public static func publish<Action>(topic: String, value: String) -> Effect<Action> {
        .broadcast(Outgoing(topic: topic, value: value), channel: publisherKey)
    }

    /// A retained value on `topic`: published when it changes (deduplicated), at most once per
    /// the node's feed interval with the last value always sent, and kept while the channel lives
    /// so that a member who starts following later gets it at once. Cancelled: no longer kept.
    public static func retained<Action>(id: some Hashable & Sendable, topic: String, value: String, _ env: ClusterEnvironment) -> Channel<
        Action
    > {
        Channel(id: id, broadcasting: .onChange(value), delivery: .throttle(env.settings.feedInterval, latest: true)) { _ in
            let transport = env.transport
            return ChannelHandler(
                receive: { (value: String) in transport.publishRetained(topic, value) },
                cancel: { transport.forgetRetained(topic) }
            )
        }
    }

    /// A connection to one member's publisher, so that follows without a `from` receive what it
    /// publishes. A new endpoint reconnects.
    public static func peer<Action>(id: some Hashable & Sendable, member: String, endpoint: String, _ env: ClusterEnvironment) -> Channel<
        Action
    > {
        Channel(id: id, lifetime: .ephemeral(resetKey: endpoint)) { _ in
            let transport = env.transport
            do {
                try transport.connect(endpoint)
            } catch {
                env.log.error("peer_connect_failed", ["peer": member, "endpoint": endpoint, "error": "\(error)"])
                return .cancelOnly {}
            }
            env.log.info("peer_connected", ["peer": member, "endpoint": endpoint])
            return .cancelOnly {
                transport.disconnect(endpoint)
                env.log.info("peer_disconnected", ["peer": member, "endpoint": endpoint])
            }
        }
    }

    /// Messages on `topic` (exact, or a prefix ending in `*`), delivered as `deliver`'s action
    /// with the messages one read of the network brought, oldest first.
    ///
    /// Without `endpoint`: from every connected member, over the node's one shared subscriber
    /// (reference-counted: two follows of one topic subscribe once), with the retained values of
    /// the topic asked for first. With one: from that member alone, over a connection of its own.
    /// The topic and endpoint are the channel's reset key: a change recreates it, after the
    /// node's follow settle unless `settles` is false.
    public static func follow<Action>(
        id: some Hashable & Sendable, topic: String, from endpoint: String? = nil, settles: Bool = true, _ env: ClusterEnvironment,
        deliver: @escaping @Sendable ([Received]) -> Action
    ) -> Channel<Action> {
        let settle = settles ? env.settings.followSettle : nil
        // A shared follow's reset key is its topic: a string is held and compared inline, where a
        // pair was boxed (an allocation per change). A dedicated one keeps the endpoint in its key;
        // the two kinds never compare equal, so moving between them recreates.
        let lifetime: ChannelLifetime =
            endpoint == nil
            ? .ephemeral(resetKey: topic, settle: settle)
            : .ephemeral(resetKey: FollowKey(topic: topic, endpoint: endpoint), settle: settle)
        return Channel(id: id, lifetime: lifetime) { dispatch in
            // The cancel captures the one closure it calls, not the transport: a copy of all its
            // closures in every live follow's cancel would cost about 200 bytes and 13 retains.
            let pattern = TopicPattern(topic)
            let received: @Sendable ([Received]) -> Void = { messages in dispatch(deliver(messages)) }
            guard let endpoint else {
                let route = env.transport.addRoute(pattern, true, received)
                let removeRoute = env.transport.removeRoute
                return .cancelOnly { removeRoute(route) }
            }
            do {
                let route = try env.transport.openDedicated(endpoint, pattern, received)
                let closeDedicated = env.transport.closeDedicated
                return .cancelOnly { closeDedicated(route) }
            } catch {
                env.log.error("follow_socket_failed", ["topic": topic, "endpoint": endpoint, "error": "\(error)"])
                return .cancelOnly {}
            }
        }
    }

    /// The SWIM membership, for the node's life: every change in another member's status
    /// arrives as `report`'s action. Cancelling it (the node stops) announces the node's leave.
    /// Nil when the environment runs no membership (an in-memory store of the data plane alone).
    ///
    /// `timer` is dispatched only when the transport has no timer of its own (an in-memory one
    /// in tests); the feature answers it with ``membershipTick()`` in its `produce`.
    public static func membership<Action>(
        _ env: ClusterEnvironment, report: @escaping @Sendable (MemberReport) -> Action, timer: Action
    ) -> Channel<Action>? {
        guard let plan = env.membership else { return nil }
        let id = env.nodeID
        return Channel(
            id: membershipID,
            receiving: { dispatch in
                let transport = env.transport
                guard
                    let host = MembershipHost(
                        plan, id: id, env: env, report: { dispatch(report($0)) }, requestTick: { dispatch(timer) })
                else {
                    env.log.error(
                        "membership_refused", ["address": plan.address.text, "message": "id or address over the membership's bounds"])
                    return ChannelHandler(receive: { (_: MembershipEvent) in }, cancel: {})
                }
                // Messages go to the machine straight from the transport (the live socket's reader
                // runs on the reactor, the store's executor): a store cycle per message would be
                // most of the membership's idle cost. The host is thread-safe and its outputs are
                // sends on the same transport and dispatched status reports.
                transport.membershipReceive { bytes, from in host.handle(.message(bytes, from: from)) }
                transport.membershipAdmissions { ids in host.admit(ids) }
                host.start(members: plan.members, seeds: plan.seeds)
                // A node stops (SIGTERM, or its store is released) by leaving: peers hear `left` at
                // once; the socket's linger gives those sends time to go out.
                return ChannelHandler(
                    receive: { (event: MembershipEvent) in host.handle(event) },
                    cancel: {
                        host.leave()
                        transport.membershipStop()
                        host.stop()
                    })
            })
    }

    /// The effect that answers the membership's `timer` action: one tick of the machine, on the
    /// store's executor.
    @inlinable
    public static func membershipTick<Action>() -> Effect<Action> {
        .broadcast(MembershipEvent.timer, channel: membershipKey)
    }
}

/// What recreates a dedicated follow's channel: its topic and endpoint.
package struct FollowKey: Hashable, Sendable, CustomStringConvertible {
    package let topic: String
    package let endpoint: String?

    package init(topic: String, endpoint: String?) {
        self.topic = topic
        self.endpoint = endpoint
    }

    package var description: String { endpoint.map { "\(topic)@\($0)" } ?? topic }
}
