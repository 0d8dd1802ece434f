import RexCluster
import RexControl
import ZMQ

/// The node's subscribing sockets: one shared SUB connected to every peer, carrying every follow
/// without `from` as reference-counted subscriptions (a topic change costs an UNSUBSCRIBE and a
/// SUBSCRIBE, not a new socket), and one dedicated SUB per follow `from` one peer.
///
/// Which subscriptions the shared socket holds is decided by a `SubscriptionTable`; this class
/// carries out its directives and routes what arrives. Lives on the reactor thread.
final class NodeSubscriber {
    struct Counters {
        var received = 0
        var malformed = 0
        /// Received messages dropped for a topic, sender or value over the limits.
        var oversized = 0
        var socketsOpen = 1
        /// Dedicated SUB sockets created so far (each follow `from` a peer, and each recreate).
        var socketsCreated = 0
    }

    let shared: ZMQSocket
    private let context: ZMQContext
    private let reactor: Reactor
    private let limits: NodeLimits
    private let wireLimits: WireLimits
    let log: NodeLogger
    // Unchecked exclusivity on the properties every received message touches (counters, the
    // routing cache, `filled`, the string reuse): the subscriber lives on the reactor thread and
    // each access is a leaf or an `inout` into the pure `WireMessage.parse`; channel and store
    // code runs only in `handOn`, after the read, with no access open.
    @exclusivity(unchecked) private(set) var counters = Counters()
    private var table: SubscriptionTable<RouteTarget>
    /// The table's directives for the shared socket, not yet carried out.
    private var directives = SubscriptionDirectiveQueue()
    private(set) var dedicated: [RouteID: DedicatedSubscription] = [:]
    /// Publisher endpoints the shared socket is connected to, and how many channels asked.
    private(set) var connected: [String: Int] = [:]
    private var reader: ReaderToken?
    /// Secured: every connection authenticates with the node's key and expects its publisher's.
    let security: DataPlaneSecurity?

    /// The last topic routed, the table generation it was resolved at, and all its targets: a
    /// stream of one topic is then routed with a string comparison instead of a hash lookup and
    /// prefix checks per message.
    @exclusivity(unchecked) private var lastRoutedTopic: String?
    @exclusivity(unchecked) private var lastRoutedGeneration: UInt64 = 0
    @exclusivity(unchecked) private var lastRoutedTargets: [RouteTarget] = []
    /// Targets given messages during the current read of a socket, handed on when it ends.
    @exclusivity(unchecked) private var filled: [RouteTarget] = []
    /// The last topic and sender strings received, reused while they repeat.
    @exclusivity(unchecked) private var topics = StringReuse()
    @exclusivity(unchecked) private var senders = StringReuse()

    init(
        context: ZMQContext, reactor: Reactor, epoch: UInt64, limits: NodeLimits, log: NodeLogger, security: DataPlaneSecurity? = nil
    ) throws(ZMQError) {
        self.security = security
        self.context = context
        self.reactor = reactor
        self.limits = limits
        self.wireLimits = WireLimits(limits)
        self.log = log
        self.table = SubscriptionTable(epoch: epoch)
        shared = try Self.makeSocket(context, limits, security)
        reader = reactor.addReader(shared) { [unowned self] in drain(shared, into: nil) }
    }

    /// A SUB socket with the data plane's bounds: frames up to `maxFrameBytes` (libzmq drops a
    /// peer that sends a larger one), a queue of `queueMessages` per peer, two frames a message.
    /// No ZMTP heartbeats: the membership drops a dead member's connections (see `NodeIO.init`).
    private static func makeSocket(
        _ context: ZMQContext, _ limits: NodeLimits, _ security: DataPlaneSecurity?
    ) throws(ZMQError) -> ZMQSocket {
        let socket = try context.socket(.sub)
        do {
            if let security {
                try socket.setOption(.curvePublicKey, security.keyPair.publicKey)
                try socket.setOption(.curveSecretKey, security.keyPair.secretKey)
            }
            try socket.setOption(.receiveHighWaterMark, limits.queueMessages)
            try socket.setOption(.maxMessageSize, limits.maxFrameBytes)
            socket.receiveFrameLimit = 2
        } catch {
            socket.close()
            throw error
        }
        return socket
    }

    /// Distinct subscriptions on the shared socket.
    var sharedSubscriptionCount: Int { table.subscriptionCount }

    /// The most directives that ever waited for the shared socket at once (see
    /// `SubscriptionDirectiveQueue.largestCount`).
    var largestQueuedDirectives: Int { directives.largestCount }

    // MARK: - Shared subscriptions

    /// Routes messages matching `pattern` (from any connected peer) to `deliver`; with
    /// `snapshot`, asks every peer (and every peer that connects later) for its retained values
    /// of `pattern`, which arrive for this route alone. The subscriptions reach the socket with
    /// the next full batch of directives or at the end of the reactor turn (`flushDirectives`).
    func addRoute(_ pattern: TopicPattern, snapshot: Bool, _ deliver: @escaping ([Received]) -> Void) -> RouteID {
        let id = table.add(pattern, snapshot: snapshot, target: RouteTarget(deliver)) { kind, bytes in
            directives.append(kind, bytes)
        }
        if directives.isFull { flushDirectives() }
        return id
    }

    /// Removes a route; unsubscribes when it was the last one for its pattern (queued as
    /// `addRoute`'s subscriptions are).
    func removeRoute(_ id: RouteID) {
        table.remove(id) { kind, bytes in directives.append(kind, bytes) }
        if directives.isFull { flushDirectives() }
    }

    /// Carries out the queued directives on the shared socket, in order (see
    /// `SubscriptionDirectiveQueue`). Runs at the end of every reactor turn, when a batch is
    /// full, and before the counters are read.
    func flushDirectives() {
        let shared = self.shared
        let log = self.log
        directives.drain { kind, bytes in Self.apply(kind, bytes, on: shared, log) }
    }

    /// Carries out one of the table's directives on the shared socket (the bytes straight from
    /// the queue's buffer: no array per directive).
    private static func apply(
        _ kind: SubscriptionTable<RouteTarget>.DirectiveKind, _ bytes: UnsafeRawBufferPointer, on socket: ZMQSocket, _ log: NodeLogger
    ) {
        do {
            switch kind {
            case .subscribe: try socket.subscribe(bytes: bytes)
            case .unsubscribe: try socket.unsubscribe(bytes: bytes)
            }
        } catch {
            log.error("subscription_failed", ["error": "\(error)"])
        }
    }

    /// Connects the shared subscriber to a peer's publisher (counted: two channels may share one).
    func connect(_ endpoint: String) throws(ZMQError) {
        connected[endpoint, default: 0] += 1
        guard connected[endpoint] == 1 else { return }
        do {
            try security?.expectPublisherKey(of: endpoint, on: shared)
            try shared.connect(endpoint)
        } catch {
            connected[endpoint] = nil
            throw error
        }
    }

    func disconnect(_ endpoint: String) {
        guard let count = connected[endpoint] else { return }
        if count > 1 {
            connected[endpoint] = count - 1
            return
        }
        connected[endpoint] = nil
        try? shared.disconnect(endpoint)
    }

    // MARK: - Dedicated subscriptions (follows `from` one peer)

    /// Opens a SUB socket connected to `endpoint` only, subscribed to `pattern` and to a snapshot
    /// of it.
    func openDedicated(endpoint: String, pattern: TopicPattern, _ deliver: @escaping ([Received]) -> Void) throws(ZMQError) -> RouteID {
        let socket = try Self.makeSocket(context, limits, security)
        let id = table.reserveID()
        do {
            try security?.expectPublisherKey(of: endpoint, on: socket)
            try socket.subscribe(pattern.subscription)
            try socket.subscribe(table.snapshotRequest(for: id, pattern))
            try socket.connect(endpoint)
        } catch {
            socket.close()
            throw error
        }
        let entry = DedicatedSubscription(socket: socket, endpoint: endpoint, pattern: pattern, target: RouteTarget(deliver), id: id)
        entry.reader = reactor.addReader(socket) { [unowned self, unowned entry] in drain(entry.socket, into: entry) }
        dedicated[id] = entry
        counters.socketsOpen += 1
        counters.socketsCreated += 1
        return id
    }

    func closeDedicated(_ id: RouteID) {
        guard let entry = dedicated.removeValue(forKey: id) else { return }
        if let reader = entry.reader { reactor.removeReader(reader) }
        entry.socket.close()
        counters.socketsOpen -= 1
    }

    // MARK: - Receiving

    /// Reads what is queued (bounded, for fairness) and routes each message; each target then
    /// gets what this read brought it as one batch, in arrival order.
    private func drain(_ socket: ZMQSocket, into dedicated: DedicatedSubscription?) {
        defer { handOn() }
        for _ in 0..<4096 {
            let parsed: WireMessage.Parsed?
            do {
                parsed = try socket.tryReceive { frames in
                    WireMessage.parse(frames, limits: wireLimits, topics: &topics, senders: &senders)
                }
            } catch {
                log.error("receive_failed", ["error": "\(error)"])
                return
            }
            guard let parsed else { return }  // nothing more queued
            switch parsed {
            case .message(let message):
                counters.received += 1
                if let dedicated {
                    if dedicated.pattern.matches(message.topic) { collect(message, into: dedicated.target) }
                } else {
                    route(message)
                }
            case .snapshot(let message, let requester, let route):
                counters.received += 1
                collectSnapshot(message, requester: requester, route: RouteID(rawValue: route), on: dedicated)
            case .malformed:
                counters.malformed += 1
            case .oversized:
                counters.oversized += 1
            }
        }
    }

    /// A snapshot answer goes to the route its tag names, if this node asked (its epoch) and the
    /// route still exists on the socket it arrived on.
    private func collectSnapshot(_ message: Received, requester: UInt64, route: RouteID, on dedicated: DedicatedSubscription?) {
        guard requester == table.epoch else { return }
        if let dedicated {
            if dedicated.id == route { collect(message, into: dedicated.target) }
        } else if let target = table.snapshotTarget(route) {
            collect(message, into: target)
        }
    }

    /// Every target of a topic is resolved once per topic change (or table change) and reused
    /// while the stream stays on that topic; a message with one target moves into it without a
    /// copy.
    private func route(_ message: consuming Received) {
        if lastRoutedTopic != message.topic || lastRoutedGeneration != table.generation {
            lastRoutedTargets = table.targets(for: message.topic)
            lastRoutedTopic = message.topic
            lastRoutedGeneration = table.generation
        }
        switch lastRoutedTargets.count {
        case 0:
            return
        case 1:
            collect(message, into: lastRoutedTargets[0])
        default:
            for target in lastRoutedTargets { collect(copy message, into: target) }
        }
    }

    private func collect(_ message: consuming Received, into target: RouteTarget) {
        if target.pending.isEmpty { filled.append(target) }
        target.pending.append(message)
    }

    /// Hands each target the messages this read brought it (nothing in a read runs channel or
    /// store code, so no route changes while messages wait here).
    private func handOn() {
        guard !filled.isEmpty else { return }
        for target in filled { target.handOn() }
        filled.removeAll(keepingCapacity: true)
    }

    // MARK: - Shutdown

    func close() {
        if let reader { reactor.removeReader(reader) }
        reader = nil
        for id in Array(dedicated.keys) { closeDedicated(id) }
        shared.close()
        counters.socketsOpen = 0
    }
}
