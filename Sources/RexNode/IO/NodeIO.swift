import RexCluster
import RexControl
import RexMembership
import ZMQ

/// The node's sockets on the reactor thread: its publisher and its subscribers, and the live
/// `NodeTransport` over them. Lives on the reactor thread (see `ReactorBound`).
///
/// Few sockets, many subscriptions: one XPUB publishes every message of the node; one shared SUB
/// connects to every peer and carries every follow without `from`; only a follow `from` one peer
/// owns a dedicated SUB socket.
final class NodeIO {
    /// What the node's sockets counted so far: the publisher's and the subscribers' counts.
    struct Counters {
        var publisher = NodePublisher.Counters()
        var subscriber = NodeSubscriber.Counters()

        var published: Int { publisher.published }
        var snapshotsServed: Int { publisher.snapshotsServed }
        var snapshotsRefused: Int { publisher.snapshotsRefused }
        var subscriptionsUntracked: Int { publisher.subscriptionsUntracked }
        var outboxPeak: Int { publisher.outboxPeak }
        var received: Int { subscriber.received }
        var oversized: Int { subscriber.oversized }
        var socketsCreated: Int { subscriber.socketsCreated }
        /// Subscription frames and data messages not in their format.
        var malformed: Int { publisher.malformed + subscriber.malformed }
        /// The subscribers' sockets and the publisher.
        var socketsOpen: Int { subscriber.socketsOpen + (publisherOpen ? 1 : 0) }
        var publisherOpen = false
        /// A secured node's handshakes and refusals (nil: plain).
        var security: MetricsDocument.Security?
        /// The membership socket's and machine's counts (nil before the node sets them).
        var membership: MembershipSocket.Counters?
        var membershipMachine: MembershipCounters?
        /// A node with a cluster authority: its statements (nil without one).
        var authority: MetricsDocument.Authority?
    }

    let reactor: Reactor
    let publisher: NodePublisher
    let subscriber: NodeSubscriber
    /// The node's SWIM membership socket (set as the node starts).
    var membership: MembershipSocket?
    /// Where the membership machine leaves its counters.
    var membershipStats: MembershipStats?
    /// A secured node's cluster authority (set as the node starts; nil without one).
    var authority: NodeAuthority?
    private var publisherReader: ReaderToken?
    private var turnEnd: TurnEndToken?
    private let security: DataPlaneSecurity?

    /// Creates and binds the publisher and creates the shared subscriber (on the reactor thread).
    /// The data-plane connections carry no ZMTP heartbeats: the SWIM membership drops (and later
    /// reconnects) the connections of a member it declares dead, and a heartbeat is a wake-up and
    /// an encrypted frame on every one of the 2 (N − 1) connections a node holds: at N = 100, 400
    /// frames a second per node, more than a loaded 2-core machine could serve (a secured cluster
    /// of 100 never settled with them; it came up in about a minute without).
    init(
        nodeID: String, epoch: UInt64, limits: NodeLimits, context: ZMQContext, reactor: Reactor, pubEndpoint: String,
        log: NodeLogger, security: DataPlaneSecurity? = nil
    ) throws(ZMQError) {
        reactor.checkIsolated()
        self.reactor = reactor
        self.security = security
        let publisher = try NodePublisher(
            context: context, endpoint: pubEndpoint, nodeID: nodeID, epoch: epoch, limits: limits, log: log, security: security)
        do {
            subscriber = try NodeSubscriber(
                context: context, reactor: reactor, epoch: epoch, limits: limits, log: log, security: security)
        } catch {
            publisher.close()
            throw error
        }
        self.publisher = publisher
        publisherReader = reactor.addReader(publisher.socket) { [unowned publisher] in publisher.drainSubscriptionFrames() }
        turnEnd = reactor.addTurnEndHook { [unowned publisher, unowned subscriber] in
            subscriber.flushDirectives()
            publisher.flush()
        }
    }

    /// The resolved publisher endpoint (the real port when bound to `:*`).
    var pubEndpoint: String { publisher.endpoint }

    /// Hands every subscription directive and message so far to libzmq, then reads the counters
    /// (so `published` includes them).
    func flushAndCount() -> Counters {
        subscriber.flushDirectives()
        publisher.flush()
        return Counters(
            publisher: publisher.counters, subscriber: subscriber.counters, publisherOpen: !publisher.socket.isClosed,
            security: security?.counters.document, membership: membership?.counters,
            membershipMachine: membershipStats?.counters, authority: authority?.metrics)
    }

    /// Member `id` publishes at `endpoint` (the membership says): a secured node expects that
    /// member's key there.
    func learnPublisher(_ endpoint: String, of id: String) {
        security?.policy.learnPublisher(endpoint, of: id)
    }

    /// Closes every socket (on the reactor thread).
    func close() {
        authority?.close()
        authority = nil
        publisher.flush()
        if let turnEnd { reactor.removeTurnEndHook(turnEnd) }
        turnEnd = nil
        if let publisherReader { reactor.removeReader(publisherReader) }
        publisherReader = nil
        subscriber.close()
        publisher.close()
        membership?.close()
    }
}

extension NodeTransport {
    /// The transport over a node's sockets: every closure must run on their reactor's thread
    /// (`ReactorBound` checks it), as the store's channel bodies and handlers do.
    static func live(_ io: ReactorBound<NodeIO>) -> NodeTransport {
        NodeTransport(
            publish: { topic, value in io.value.publisher.publish(topic: topic, value: value) },
            publishRetained: { topic, value in io.value.publisher.publishRetained(topic: topic, value: value) },
            forgetRetained: { topic in io.value.publisher.forgetRetained(topic: topic) },
            addRoute: { pattern, snapshot, deliver in io.value.subscriber.addRoute(pattern, snapshot: snapshot, deliver) },
            removeRoute: { route in io.value.subscriber.removeRoute(route) },
            connect: { endpoint in try io.value.subscriber.connect(endpoint) },
            disconnect: { endpoint in io.value.subscriber.disconnect(endpoint) },
            openDedicated: { endpoint, pattern, deliver in
                try io.value.subscriber.openDedicated(endpoint: endpoint, pattern: pattern, deliver)
            },
            closeDedicated: { route in io.value.subscriber.closeDedicated(route) },
            membershipSend: { id, endpoint, bytes in io.value.membership?.send(to: id, endpoint: endpoint, bytes) },
            membershipReceive: { deliver in io.value.membership?.open(deliver) },
            membershipStop: { io.value.membership?.stopDelivering() },
            membershipForget: { id in io.value.membership?.forget(id) },
            membershipArm: { delay, fire in io.value.membership?.arm(after: delay, fire) },
            membershipAdmissions: { admit in io.value.membership?.admissions = admit },
            membershipLearned: { id, pub in io.value.learnPublisher(pub, of: id) }
        )
    }
}
