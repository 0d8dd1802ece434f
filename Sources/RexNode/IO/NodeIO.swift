import ZMQ

/// The node's sockets and their bookkeeping. Lives on the reactor thread (see `ReactorBound`).
///
/// Few sockets, many subscriptions: one XPUB publishes every message of the node; one shared SUB
/// connects to every peer and carries every follow without `from`, as reference-counted
/// subscriptions, so a topic change costs an UNSUBSCRIBE and a SUBSCRIBE, not a new socket.
/// Only a follow `from` one peer owns a dedicated SUB socket.
final class NodeIO {
    struct Counters {
        var published = 0
        var received = 0
        var hwmDrops = 0
        var malformed = 0
        var socketsOpen = 0
        /// Dedicated SUB sockets created so far (each follow `from` a peer, and each recreate).
        var socketsCreated = 0
        /// The most messages ever waiting in the outbox at once.
        var outboxPeak = 0
    }

    /// One delivery target for messages matching a pattern.
    private struct Route {
        let pattern: TopicPattern
        let target: RouteTarget
    }

    private final class Dedicated {
        let socket: ZMQSocket
        var reader: ReaderToken?
        let pattern: TopicPattern
        let target: RouteTarget

        init(socket: ZMQSocket, pattern: TopicPattern, target: RouteTarget) {
            self.socket = socket
            self.pattern = pattern
            self.target = target
        }
    }

    let nodeID: String
    let context: ZMQContext
    let reactor: Reactor
    let publisher: ZMQSocket
    let subscriber: ZMQSocket
    let log: NodeLogger
    private var tally = Counters()

    /// What the node's sockets did so far. Flushes the outbox first, so the counts include every
    /// message published until now.
    var counters: Counters {
        flush()
        return tally
    }

    private var routes: [UInt64: Route] = [:]
    private var exactRoutes: [String: [UInt64]] = [:]
    /// The targets of `exactRoutes`, resolved once per route change rather than per message.
    private var exactTargets: [String: [RouteTarget]] = [:]
    /// The last topic routed and all its targets (exact and prefix): a stream of one topic is then
    /// routed with a string comparison instead of a hash lookup and prefix checks per message.
    /// Cleared whenever the routes change.
    private var lastRoutedTopic: String?
    private var lastRoutedTargets: [RouteTarget] = []
    private var prefixRoutes: [UInt64] = []
    /// `prefixRoutes` resolved to their prefixes and targets, side by side (read per message: a
    /// target is only touched when its prefix matches).
    private var prefixes: [String] = []
    private var prefixTargets: [RouteTarget] = []
    /// Targets given messages during the current read of a socket, handed on when it ends.
    private var filled: [RouteTarget] = []
    /// The last topic and sender strings received, reused while they repeat.
    private var topics = StringReuse()
    private var senders = StringReuse()
    private var subscriptionCounts: [[UInt8]: Int] = [:]
    /// Per published topic: the last sequence number and the head frame's fixed part.
    private var sequences: [String: TopicOutput] = [:]
    // The last topic published and its index in `sequences` (two fields: reading a tuple out of
    // an optional copies both halves).
    private var lastPublishedTopic = ""
    private var lastPublishedIndex: [String: TopicOutput].Index?
    private var dedicated: [UInt64: Dedicated] = [:]
    private var connected: [String: Int] = [:]
    private var nextID: UInt64 = 0
    private var readers: [ReaderToken] = []
    /// Messages published this reactor turn, not yet handed to libzmq.
    private var outbox = Outbox()
    private var turnEnd: TurnEndToken?

    /// Creates and binds the publisher and creates the shared subscriber (on the reactor thread).
    init(nodeID: String, context: ZMQContext, reactor: Reactor, pubEndpoint: String, log: NodeLogger) throws(ZMQError) {
        reactor.checkIsolated()
        self.nodeID = nodeID
        self.context = context
        self.reactor = reactor
        self.log = log
        let publisher = try context.socket(.xpub)
        // Every option before bind: options set later do not reach tcp/ipc connections.
        try publisher.setOption(.sendHighWaterMark, 100_000)
        try publisher.setOption(.xpubNoDrop, true)
        // Every subscribe/unsubscribe frame, per subscriber: lets the node replay its feeds' last
        // values to a new subscriber (no slow-joiner loss) and count subscriptions exactly.
        try publisher.setOption(.xpubVerboser, true)
        do {
            try publisher.bind(pubEndpoint)
        } catch {
            publisher.close()
            throw error
        }
        let subscriber: ZMQSocket
        do {
            subscriber = try context.socket(.sub)
            try subscriber.setOption(.receiveHighWaterMark, 0)
        } catch {
            publisher.close()
            throw error
        }
        self.publisher = publisher
        self.subscriber = subscriber
        tally.socketsOpen = 2
        readers.append(reactor.addReader(publisher) { [unowned self] in drainSubscriptionFrames() })
        readers.append(reactor.addReader(subscriber) { [unowned self] in drain(subscriber, into: nil) })
        turnEnd = reactor.addTurnEndHook { [unowned self] in flush() }
    }

    /// The resolved publisher endpoint (the real port when bound to `:*`).
    var pubEndpoint: String { ((try? publisher.lastEndpoint) ?? nil) ?? "" }

    // MARK: - Publishing

    /// The last value of each feed, replayed to every new subscriber of its topic.
    private var retained: [String: String] = [:]

    /// Publishes a feed's value and keeps it for subscribers that arrive later.
    func publishRetained(topic: String, value: String) {
        retained[topic] = value
        publish(topic: topic, value: value)
    }

    /// Stops replaying a feed (it no longer exists).
    func forgetRetained(topic: String) {
        retained[topic] = nil
    }

    /// Queues `[topic\0node sequence, value]` for the end of this reactor turn (see `Outbox`).
    func publish(topic: String, value: String) {
        // The last topic's index is kept (values-only writes keep dictionary indices valid), so a
        // stream of one topic costs a string comparison here, not a hash lookup per message.
        let index: [String: TopicOutput].Index
        if let last = lastPublishedIndex, lastPublishedTopic == topic {
            index = last
        } else if let found = sequences.index(forKey: topic) {
            index = found
        } else {
            // A new topic: an insertion, so indices taken before it are stale.
            sequences[topic] = TopicOutput(sequence: 0, headPrefix: WireMessage.headPrefix(topic: topic, sender: nodeID))
            index = sequences.index(forKey: topic)!
        }
        // Values-only writes keep dictionary indices valid.
        sequences.values[index].sequence &+= 1
        let sequence = sequences.values[index].sequence
        lastPublishedTopic = topic
        lastPublishedIndex = index
        sequences.values[index].headPrefix.withUnsafeBytes { prefix in
            value.withUTF8Bytes { bytes in
                outbox.append(headCapacity: prefix.count + WireMessage.sequenceCapacity, value: bytes) { head in
                    WireMessage.encodeHead(prefix: prefix, sequence: sequence, into: head)
                }
            }
        }
        if outbox.count > tally.outboxPeak { tally.outboxPeak = outbox.count }
        if outbox.count >= Self.outboxLimit || outbox.byteCount >= Self.outboxByteLimit { flush() }
    }

    /// At most this many messages (or bytes) wait in the outbox before it is flushed mid-turn.
    static let outboxLimit = 512
    static let outboxByteLimit = 256 * 1024

    /// Hands every queued message to libzmq, in order; a full queue counts as an HWM drop.
    /// Runs at the end of every reactor turn, when the outbox reaches its limits, before the
    /// counters are read and when the node closes.
    func flush() {
        guard !outbox.isEmpty else { return }
        var published = 0
        var dropped = 0
        var failure: (error: any Error, head: [UInt8], unsent: Int)?
        let publisher = self.publisher
        outbox.drain { head, value in
            // After a failed send (the socket or context is going away) nothing more is sent:
            // a value frame must never follow an unfinished message.
            if failure != nil {
                failure!.unsent += 1
                return
            }
            do {
                guard try publisher.send(head, flags: [.more, .dontWait]) else {
                    dropped += 1
                    return
                }
                _ = try publisher.send(value, flags: [.dontWait])   // accepted with its head
                published += 1
            } catch {
                failure = (error, Array(head), 1)
            }
        }
        tally.published += published
        tally.hwmDrops += dropped
        if let failure {
            let topic = String(decoding: failure.head.prefix { $0 != 0 }, as: UTF8.self)
            log.error("publish_failed", ["topic": topic, "error": "\(failure.error)", "unsent": "\(failure.unsent)"])
        }
    }

    // MARK: - Shared subscriptions

    /// Routes messages matching `pattern` (from any connected peer) to `deliver`; subscribes on
    /// the shared socket when this is the first route for that pattern.
    func addRoute(_ pattern: TopicPattern, _ deliver: @escaping ([Received]) -> Void) -> UInt64 {
        nextID += 1
        routes[nextID] = Route(pattern: pattern, target: RouteTarget(deliver))
        switch pattern {
        case .exact(let topic):
            exactRoutes[topic, default: []].append(nextID)
            resolveTargets(topic)
        case .prefix:
            prefixRoutes.append(nextID)
            resolvePrefixTargets()
        }
        let subscription = pattern.subscription
        subscriptionCounts[subscription, default: 0] += 1
        if subscriptionCounts[subscription] == 1 {
            do { try subscriber.subscribe(subscription) } catch { log.error("subscribe_failed", ["error": "\(error)"]) }
        }
        return nextID
    }

    /// Removes a route; unsubscribes when it was the last one for its pattern.
    func removeRoute(_ id: UInt64) {
        guard let route = routes.removeValue(forKey: id) else { return }
        switch route.pattern {
        case .exact(let topic):
            exactRoutes[topic]?.removeAll { $0 == id }
            if exactRoutes[topic]?.isEmpty == true { exactRoutes[topic] = nil }
            resolveTargets(topic)
        case .prefix:
            prefixRoutes.removeAll { $0 == id }
            resolvePrefixTargets()
        }
        let subscription = route.pattern.subscription
        subscriptionCounts[subscription, default: 1] -= 1
        if subscriptionCounts[subscription] == 0 {
            subscriptionCounts[subscription] = nil
            do { try subscriber.unsubscribe(subscription) } catch { log.error("unsubscribe_failed", ["error": "\(error)"]) }
        }
    }

    private func resolveTargets(_ topic: String) {
        lastRoutedTopic = nil
        exactTargets[topic] = exactRoutes[topic]?.compactMap { routes[$0]?.target }
    }

    private func resolvePrefixTargets() {
        lastRoutedTopic = nil
        prefixes.removeAll()
        prefixTargets.removeAll()
        for id in prefixRoutes {
            guard let route = routes[id], case .prefix(let prefix) = route.pattern else { continue }
            prefixes.append(prefix)
            prefixTargets.append(route.target)
        }
    }

    /// How many distinct subscriptions the shared socket holds.
    var sharedSubscriptionCount: Int { subscriptionCounts.count }

    /// Connects the shared subscriber to a peer's publisher.
    func connect(_ endpoint: String) throws(ZMQError) {
        connected[endpoint, default: 0] += 1
        guard connected[endpoint] == 1 else { return }
        do {
            try subscriber.connect(endpoint)
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
        try? subscriber.disconnect(endpoint)
    }

    // MARK: - Dedicated subscriptions (follows `from` one peer)

    /// Opens a SUB socket connected to `endpoint` only and subscribed to `pattern`.
    func openDedicated(endpoint: String, pattern: TopicPattern, _ deliver: @escaping ([Received]) -> Void) throws(ZMQError) -> UInt64 {
        let socket = try context.socket(.sub)
        do {
            try socket.setOption(.receiveHighWaterMark, 0)
            try socket.subscribe(pattern.subscription)
            try socket.connect(endpoint)
        } catch {
            socket.close()
            throw error
        }
        nextID += 1
        let entry = Dedicated(socket: socket, pattern: pattern, target: RouteTarget(deliver))
        entry.reader = reactor.addReader(socket) { [unowned self, unowned entry] in drain(entry.socket, into: entry) }
        dedicated[nextID] = entry
        tally.socketsOpen += 1
        tally.socketsCreated += 1
        return nextID
    }

    func closeDedicated(_ id: UInt64) {
        guard let entry = dedicated.removeValue(forKey: id) else { return }
        if let reader = entry.reader { reactor.removeReader(reader) }
        entry.socket.close()
        tally.socketsOpen -= 1
    }

    // MARK: - Receiving

    /// Reads what is queued (bounded, for fairness) and routes each message; each target then
    /// gets what this read brought it as one batch, in arrival order.
    private func drain(_ socket: ZMQSocket, into dedicated: Dedicated?) {
        defer { handOn() }
        for _ in 0..<4096 {
            let message: Received??
            do {
                message = try socket.tryReceive { frames in WireMessage.parse(frames, topics: &topics, senders: &senders) }
            } catch {
                log.error("receive_failed", ["error": "\(error)"])
                return
            }
            guard let message else { return }           // nothing more queued
            guard let message else {                     // not our format
                tally.malformed += 1
                continue
            }
            tally.received += 1
            if let dedicated {
                if dedicated.pattern.matches(message.topic) { collect(message, into: dedicated.target) }
            } else {
                route(message)
            }
        }
    }

    /// Every target of a topic — exact routes and matching prefixes — is resolved once per topic
    /// change and reused while the stream stays on that topic; a message with one target moves
    /// into it without a copy.
    private func route(_ message: consuming Received) {
        if lastRoutedTopic != message.topic {
            var targets = exactTargets[message.topic] ?? []
            // Byte prefixes, as libzmq matches subscriptions.
            for index in prefixes.indices where message.topic.utf8.starts(with: prefixes[index].utf8) {
                targets.append(prefixTargets[index])
            }
            lastRoutedTargets = targets
            lastRoutedTopic = message.topic
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

    /// Prefixes peers are subscribed to at this node's publisher (from the XPUB's frames: first
    /// byte 1 = subscribe, 0 = unsubscribe). Lets tests and operators see subscriptions arrive.
    private(set) var remoteSubscriptions: [[UInt8]: Int] = [:]

    private func drainSubscriptionFrames() {
        for _ in 0..<1024 {
            let received = try? publisher.tryReceive { frames -> [UInt8] in frames.bytes(0) }
            guard let frame = received ?? nil, let kind = frame.first else { return }
            let prefix = Array(frame.dropFirst())
            if kind == 1 {
                remoteSubscriptions[prefix, default: 0] += 1
                replayRetained(matching: prefix)
            } else if kind == 0, let count = remoteSubscriptions[prefix] {
                remoteSubscriptions[prefix] = count > 1 ? count - 1 : nil
            }
        }
    }

    /// Sends the last value of every feed whose wire topic (`topic\0`) starts with `prefix`.
    private func replayRetained(matching prefix: [UInt8]) {
        guard !retained.isEmpty else { return }
        for (topic, value) in retained {
            var wireTopic = Array(topic.utf8)
            wireTopic.append(0)
            guard wireTopic.starts(with: prefix) else { continue }
            publish(topic: topic, value: value)
        }
    }

    // MARK: - Shutdown

    /// Closes every socket (on the reactor thread).
    func close() {
        flush()
        if let turnEnd { reactor.removeTurnEndHook(turnEnd) }
        turnEnd = nil
        for reader in readers { reactor.removeReader(reader) }
        readers.removeAll()
        for id in Array(dedicated.keys) { closeDedicated(id) }
        publisher.close()
        subscriber.close()
        tally.socketsOpen = 0
    }
}

/// What a node keeps per topic it publishes.
struct TopicOutput {
    var sequence: UInt64
    /// `topic\0sender `: the first frame up to the sequence.
    let headPrefix: [UInt8]
}
