import RexControl
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
        /// Received messages dropped for a topic, sender or value over the limits.
        var oversized = 0
        /// Snapshot requests answered, and retained values not sent because the snapshot rate
        /// limit was reached.
        var snapshotsServed = 0
        var snapshotsRefused = 0
        /// Subscriptions from peers not tracked in `remoteSubscriptions` (over its limit).
        var subscriptionsUntracked = 0
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
        let id: UInt64

        init(socket: ZMQSocket, pattern: TopicPattern, target: RouteTarget, id: UInt64) {
            self.socket = socket
            self.pattern = pattern
            self.target = target
            self.id = id
        }
    }

    let nodeID: String
    /// Chosen at start and carried in every message head: followers that see a new epoch from
    /// this node know it restarted and start its sequences over.
    let epoch: UInt64
    let limits: NodeLimits
    private let wireLimits: WireLimits
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
    /// Routes by id for snapshot answers (`$snap.<epoch>.<id>`), shared and dedicated alike.
    private var snapshotTargets: [UInt64: RouteTarget] = [:]
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
    init(
        nodeID: String, epoch: UInt64, limits: NodeLimits, context: ZMQContext, reactor: Reactor, pubEndpoint: String,
        log: NodeLogger
    ) throws(ZMQError) {
        reactor.checkIsolated()
        self.nodeID = nodeID
        self.epoch = epoch
        self.limits = limits
        self.wireLimits = WireLimits(limits)
        self.context = context
        self.reactor = reactor
        self.log = log
        self.snapshotTokens = Double(limits.snapshotMessagesPerSecond)
        let publisher = try context.socket(.xpub)
        do {
            // Every option before bind: options set later do not reach tcp/ipc connections.
            // No ZMQ_XPUB_NODROP: with it one subscriber that stops reading fills its queue and
            // then every send fails, for every subscriber. Without it libzmq drops for the full
            // queue only; that subscriber sees the drops as gaps.
            try publisher.setOption(.sendHighWaterMark, limits.queueMessages)
            // Subscription frames are one frame of a topic or snapshot request.
            try publisher.setOption(.maxMessageSize, limits.maxFrameBytes)
            publisher.receiveFrameLimit = 1
            // Every subscribe/unsubscribe frame, per subscriber: snapshot requests are subscriptions
            // (see `serveSnapshot`), and subscriptions are counted exactly.
            try publisher.setOption(.xpubVerboser, true)
            try publisher.bind(pubEndpoint)
        } catch {
            publisher.close()
            throw error
        }
        let subscriber: ZMQSocket
        do {
            subscriber = try Self.makeSubscriber(context, limits)
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

    /// A SUB socket with the data plane's bounds: frames up to `maxFrameBytes` (libzmq drops a
    /// peer that sends a larger one), a queue of `queueMessages` per peer, two frames a message.
    private static func makeSubscriber(_ context: ZMQContext, _ limits: NodeLimits) throws(ZMQError) -> ZMQSocket {
        let socket = try context.socket(.sub)
        do {
            try socket.setOption(.receiveHighWaterMark, limits.queueMessages)
            try socket.setOption(.maxMessageSize, limits.maxFrameBytes)
            socket.receiveFrameLimit = 2
        } catch {
            socket.close()
            throw error
        }
        return socket
    }

    /// The resolved publisher endpoint (the real port when bound to `:*`).
    var pubEndpoint: String { ((try? publisher.lastEndpoint) ?? nil) ?? "" }

    // MARK: - Publishing

    /// The last value of each feed and its sequence, sent to each late joiner that asks.
    private var retained: [String: RetainedValue] = [:]

    /// Publishes a feed's value and keeps it for subscribers that arrive later.
    func publishRetained(topic: String, value: String) {
        let sequence = publish(topic: topic, value: value)
        retained[topic] = RetainedValue(value: value, sequence: sequence)
    }

    /// Stops replaying a feed (it no longer exists).
    func forgetRetained(topic: String) {
        retained[topic] = nil
    }

    /// Queues `[topic\0node epoch sequence, value]` for the end of this reactor turn (see
    /// `Outbox`); returns the message's sequence number.
    @discardableResult
    func publish(topic: String, value: String) -> UInt64 {
        // The last topic's index is kept (values-only writes keep dictionary indices valid), so a
        // stream of one topic costs a string comparison here, not a hash lookup per message.
        let index: [String: TopicOutput].Index
        if let last = lastPublishedIndex, lastPublishedTopic == topic {
            index = last
        } else if let found = sequences.index(forKey: topic) {
            index = found
        } else {
            // A new topic: an insertion, so indices taken before it are stale.
            sequences[topic] = TopicOutput(sequence: 0, headPrefix: WireMessage.headPrefix(topic: topic, sender: nodeID, epoch: epoch))
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
        return sequence
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
    /// the shared socket when this is the first route for that pattern. With `snapshot`, asks
    /// every peer (and every peer that connects later) for its retained values of `pattern`,
    /// which arrive for this route alone.
    func addRoute(_ pattern: TopicPattern, snapshot: Bool = true, _ deliver: @escaping ([Received]) -> Void) -> UInt64 {
        nextID += 1
        let target = RouteTarget(deliver)
        routes[nextID] = Route(pattern: pattern, target: target)
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
        if snapshot {
            // After the subscription itself, so every update after the snapshot's is delivered.
            snapshotTargets[nextID] = target
            do { try subscriber.subscribe(snapshotRequest(route: nextID, pattern)) } catch {
                log.error("subscribe_failed", ["error": "\(error)"])
            }
        }
        return nextID
    }

    /// The subscription that asks for a snapshot of `pattern` for `route`: its tag, then the
    /// pattern's own subscription bytes (see `WireMessage`).
    private func snapshotRequest(route: UInt64, _ pattern: TopicPattern) -> [UInt8] {
        WireMessage.snapshotTag(epoch: epoch, route: route) + pattern.subscription
    }

    /// Removes a route; unsubscribes when it was the last one for its pattern.
    func removeRoute(_ id: UInt64) {
        guard let route = routes.removeValue(forKey: id) else { return }
        if snapshotTargets.removeValue(forKey: id) != nil {
            do { try subscriber.unsubscribe(snapshotRequest(route: id, route.pattern)) } catch {
                log.error("unsubscribe_failed", ["error": "\(error)"])
            }
        }
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
        let socket = try Self.makeSubscriber(context, limits)
        let id = nextID + 1
        do {
            try socket.subscribe(pattern.subscription)
            try socket.subscribe(snapshotRequest(route: id, pattern))
            try socket.connect(endpoint)
        } catch {
            socket.close()
            throw error
        }
        nextID = id
        let entry = Dedicated(socket: socket, pattern: pattern, target: RouteTarget(deliver), id: id)
        snapshotTargets[id] = entry.target
        entry.reader = reactor.addReader(socket) { [unowned self, unowned entry] in drain(entry.socket, into: entry) }
        dedicated[nextID] = entry
        tally.socketsOpen += 1
        tally.socketsCreated += 1
        return nextID
    }

    func closeDedicated(_ id: UInt64) {
        guard let entry = dedicated.removeValue(forKey: id) else { return }
        snapshotTargets[id] = nil
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
            let parsed: WireMessage.Parsed?
            do {
                parsed = try socket.tryReceive { frames in
                    WireMessage.parse(frames, limits: wireLimits, topics: &topics, senders: &senders)
                }
            } catch {
                log.error("receive_failed", ["error": "\(error)"])
                return
            }
            guard let parsed else { return }           // nothing more queued
            let message: Received
            switch parsed {
            case .message(let received):
                message = received
            case .snapshot(let received, let requester, let route):
                tally.received += 1
                // Only answers to this node's own requests, for a route that still exists.
                guard requester == epoch, let target = snapshotTargets[route] else { continue }
                if let dedicated, dedicated.id != route { continue }
                collect(received, into: target)
                continue
            case .malformed:
                tally.malformed += 1
                continue
            case .oversized:
                tally.oversized += 1
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
    /// Holds at most `limits.maxFollows` prefixes of at most a topic's length (`maxNameBytes` and
    /// its NUL); others are counted, not kept.
    private(set) var remoteSubscriptions: [[UInt8]: Int] = [:]

    private func drainSubscriptionFrames() {
        for _ in 0..<1024 {
            let received: [UInt8]??
            do {
                received = try publisher.tryReceive { frames -> [UInt8]? in frames.count == 1 ? frames.bytes(0) : nil }
            } catch {
                log.error("receive_failed", ["error": "\(error)"])
                return
            }
            guard let received else { return }   // nothing more queued
            guard let frame = received, let kind = frame.first else {
                tally.malformed += 1
                continue
            }
            let prefix = frame.dropFirst()
            if prefix.starts(with: snapshotPrefixBytes) {
                if kind == 1 { serveSnapshot(request: prefix) }
                continue
            }
            let key = Array(prefix)
            if kind == 1 {
                if let count = remoteSubscriptions[key] {
                    remoteSubscriptions[key] = count + 1
                } else if remoteSubscriptions.count < limits.maxFollows, key.count <= limits.maxNameBytes + 1 {
                    remoteSubscriptions[key] = 1
                } else {
                    tally.subscriptionsUntracked += 1
                }
            } else if kind == 0, let count = remoteSubscriptions[key] {
                remoteSubscriptions[key] = count > 1 ? count - 1 : nil
            }
        }
    }

    private let snapshotPrefixBytes = Array(WireMessage.snapshotPrefix.utf8)

    /// Snapshot answers left this second (a token bucket of `snapshotMessagesPerSecond`).
    private var snapshotTokens: Double
    private var snapshotRefill = ContinuousClock.now

    /// Answers a snapshot request — `$snap.<epoch>.<route>\0` then a topic subscription — with
    /// the retained value of every feed the subscription matches, each behind the request's tag,
    /// so only the subscriber that asked receives them (the tag is its subscription), and the
    /// others hear nothing twice. Answers are rate-limited: a request costs one token, a prefix
    /// scan of the feeds one more per 100 feeds, each value sent one; without tokens values are
    /// not sent and are counted.
    private func serveSnapshot(request: ArraySlice<UInt8>) {
        let now = ContinuousClock.now
        let rate = Double(max(limits.snapshotMessagesPerSecond, 0))
        let elapsed = now - snapshotRefill
        snapshotRefill = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        snapshotTokens = min(rate, snapshotTokens + seconds * rate)
        guard let tagEnd = request.firstIndex(of: 0) else {
            tally.malformed += 1
            return
        }
        let tag = request[...tagEnd]
        let pattern = request[(tagEnd + 1)...]
        var matches: [(topic: String, retained: RetainedValue)] = []
        if pattern.last == 0 {
            // An exact topic: one lookup.
            let topic = String(decoding: pattern.dropLast(), as: UTF8.self)
            if let value = retained[topic] { matches.append((topic, value)) }
            snapshotTokens -= 1
        } else {
            snapshotTokens -= 1 + Double(retained.count / 100)
            for (topic, value) in retained where topic.utf8.starts(with: pattern) { matches.append((topic, value)) }
        }
        tally.snapshotsServed += 1
        for match in matches {
            guard snapshotTokens >= 1 else {
                tally.snapshotsRefused += 1
                continue
            }
            snapshotTokens -= 1
            sendSnapshot(tag: tag, topic: match.topic, retained: match.retained)
        }
    }

    /// Queues one snapshot answer: `tag topic\0node epoch sequence`, the retained value.
    private func sendSnapshot(tag: ArraySlice<UInt8>, topic: String, retained value: RetainedValue) {
        var prefix = Array(tag)
        prefix += WireMessage.headPrefix(topic: topic, sender: nodeID, epoch: epoch)
        prefix.withUnsafeBytes { prefix in
            value.value.withUTF8Bytes { bytes in
                outbox.append(headCapacity: prefix.count + WireMessage.sequenceCapacity, value: bytes) { head in
                    WireMessage.encodeHead(prefix: prefix, sequence: value.sequence, into: head)
                }
            }
        }
        if outbox.count >= Self.outboxLimit || outbox.byteCount >= Self.outboxByteLimit { flush() }
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

/// A feed's last value and the sequence it was published with.
struct RetainedValue {
    let value: String
    let sequence: UInt64
}

/// What a node keeps per topic it publishes.
struct TopicOutput {
    var sequence: UInt64
    /// `topic\0sender `: the first frame up to the sequence.
    let headPrefix: [UInt8]
}
