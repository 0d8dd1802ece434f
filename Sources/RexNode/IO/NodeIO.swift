import RexControl
import ZMQ

/// The node's sockets on the reactor thread: its publisher and its subscribers, and the live
/// `NodeTransport` over them. Lives on the reactor thread (see `ReactorBound`).
///
/// Few sockets, many subscriptions: one XPUB publishes every message of the node; one shared SUB
/// connects to every peer and carries every follow without `from`; only a follow `from` one peer
/// owns a dedicated SUB socket.
final class NodeIO {
    /// What the node's sockets counted so far.
    struct Counters {
        var published = 0
        var received = 0
        var hwmDrops = 0
        var malformed = 0
        var oversized = 0
        var snapshotsServed = 0
        var snapshotsRefused = 0
        var subscriptionsUntracked = 0
        var socketsOpen = 0
        var socketsCreated = 0
        var outboxPeak = 0
    }

    let reactor: Reactor
    let publisher: NodePublisher
    let subscriber: NodeSubscriber
    private var publisherReader: ReaderToken?
    private var turnEnd: TurnEndToken?

    /// Creates and binds the publisher and creates the shared subscriber (on the reactor thread).
    init(
        nodeID: String, epoch: UInt64, limits: NodeLimits, context: ZMQContext, reactor: Reactor, pubEndpoint: String,
        log: NodeLogger
    ) throws(ZMQError) {
        reactor.checkIsolated()
        self.reactor = reactor
        let publisher = try NodePublisher(context: context, endpoint: pubEndpoint, nodeID: nodeID, epoch: epoch, limits: limits, log: log)
        do {
            subscriber = try NodeSubscriber(context: context, reactor: reactor, epoch: epoch, limits: limits, log: log)
        } catch {
            publisher.close()
            throw error
        }
        self.publisher = publisher
        publisherReader = reactor.addReader(publisher.socket) { [unowned publisher] in publisher.drainSubscriptionFrames() }
        turnEnd = reactor.addTurnEndHook { [unowned publisher] in publisher.flush() }
    }

    /// The resolved publisher endpoint (the real port when bound to `:*`).
    var pubEndpoint: String { publisher.endpoint }

    /// Hands every message published so far to libzmq, then reads the counters (so `published`
    /// includes them).
    func flushAndCount() -> Counters {
        publisher.flush()
        let out = publisher.counters
        let input = subscriber.counters
        return Counters(
            published: out.published, received: input.received, hwmDrops: out.hwmDrops,
            malformed: out.malformed + input.malformed, oversized: input.oversized,
            snapshotsServed: out.snapshotsServed, snapshotsRefused: out.snapshotsRefused,
            subscriptionsUntracked: out.subscriptionsUntracked,
            socketsOpen: input.socketsOpen + (publisher.socket.isClosed ? 0 : 1), socketsCreated: input.socketsCreated,
            outboxPeak: out.outboxPeak
        )
    }

    /// Closes every socket (on the reactor thread).
    func close() {
        publisher.flush()
        if let turnEnd { reactor.removeTurnEndHook(turnEnd) }
        turnEnd = nil
        if let publisherReader { reactor.removeReader(publisherReader) }
        publisherReader = nil
        subscriber.close()
        publisher.close()
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
            closeDedicated: { route in io.value.subscriber.closeDedicated(route) }
        )
    }
}
