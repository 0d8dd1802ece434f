import RexCluster
import RexControl
import ZMQ

/// The node's one publishing socket: an XPUB every peer subscribes to.
///
/// Publishing numbers each message per topic and queues it in the outbox until the reactor turn
/// ends; the XPUB's subscription frames are read here too, to answer snapshot requests (see
/// `RetainedFeeds`) and to count the subscriptions peers hold. Lives on the reactor thread.
final class NodePublisher {
    struct Counters {
        /// Messages libzmq accepted. An XPUB without `ZMQ_XPUB_NODROP` accepts every message:
        /// a subscriber whose queue is full loses it there, silently; that subscriber's follows
        /// count the loss as gaps. The publisher cannot see it.
        var published = 0
        /// Subscription frames that were not one frame of a kind byte and a prefix.
        var malformed = 0
        /// Snapshot requests answered, and retained values not sent for the snapshot rate.
        var snapshotsServed = 0
        var snapshotsRefused = 0
        /// Subscriptions from peers not tracked in `remoteSubscriptions` (over its limits).
        var subscriptionsUntracked = 0
        /// The most messages ever waiting in the outbox at once.
        var outboxPeak = 0
    }

    let socket: ZMQSocket
    let nodeID: String
    let epoch: UInt64
    private let limits: NodeLimits
    private let log: NodeLogger
    // Unchecked exclusivity on the five properties every published message touches (counters,
    // sequences, the last topic and its index, the outbox): the publisher lives on the reactor
    // thread, and the only accesses that overlap are a read of `sequences` (the head prefix)
    // held while `enqueue` writes `outbox` and `counters` (and `flush` drains them), which are
    // other properties; nothing called while an access is open publishes again. The dynamic
    // checks were 14 % of the publisher's reactor samples in `nodebench thr` (none with the
    // old `-enforce-exclusivity=unchecked`).
    @exclusivity(unchecked) private(set) var counters = Counters()

    /// Per published topic: the last sequence number and the head frame's fixed part.
    @exclusivity(unchecked) private var sequences: [String: TopicOutput] = [:]
    // The last topic published and its index in `sequences` (two fields: reading a tuple out of
    // an optional copies both halves).
    @exclusivity(unchecked) private var lastPublishedTopic = ""
    @exclusivity(unchecked) private var lastPublishedIndex: [String: TopicOutput].Index?
    /// Messages published this reactor turn, not yet handed to libzmq.
    @exclusivity(unchecked) private var outbox = Outbox()
    private var retained: RetainedFeeds
    private let snapshotClock = ContinuousClock()
    private let started = ContinuousClock.now

    /// Prefixes peers are subscribed to here (first byte of a subscription frame 1 = subscribe,
    /// 0 = unsubscribe). At most `limits.maxFollows` prefixes of at most a topic's length
    /// (`maxNameBytes` and its NUL); others are counted, not kept.
    private(set) var remoteSubscriptions: [SubscriptionBytes: Int] = [:]

    /// At most this many messages (or bytes) wait in the outbox before it is flushed mid-turn.
    static let outboxLimit = 512
    static let outboxByteLimit = 256 * 1024

    /// Creates the XPUB and binds it.
    init(
        context: ZMQContext, endpoint: String, nodeID: String, epoch: UInt64, limits: NodeLimits, log: NodeLogger,
        security: DataPlaneSecurity? = nil
    ) throws(ZMQError) {
        let socket = try context.socket(.xpub)
        do {
            // Secured: a CURVE server; the ZAP handler lets only cluster members subscribe.
            if let security { try security.makePublisher(socket) }
            // Every option before bind: options set later do not reach tcp/ipc connections.
            // No ZMQ_XPUB_NODROP: with it one subscriber that stops reading fills its queue and
            // then every send fails, for every subscriber. Without it libzmq drops for the full
            // queue only; that subscriber sees the drops as gaps.
            try socket.setOption(.sendHighWaterMark, limits.queueMessages)
            // Subscription frames are one frame of a topic or snapshot request.
            try socket.setOption(.maxMessageSize, limits.maxFrameBytes)
            socket.receiveFrameLimit = 1
            // Every subscribe/unsubscribe frame, per subscriber: snapshot requests are
            // subscriptions, and subscriptions are counted exactly.
            try socket.setOption(.xpubVerboser, true)
            try socket.bind(endpoint)
        } catch {
            socket.close()
            throw error
        }
        self.socket = socket
        self.nodeID = nodeID
        self.epoch = epoch
        self.limits = limits
        self.log = log
        self.retained = RetainedFeeds(rate: limits.snapshotMessagesPerSecond)
    }

    /// The resolved endpoint (the real port when bound to `:*`).
    var endpoint: String { ((try? socket.lastEndpoint) ?? nil) ?? "" }

    // MARK: - Publishing

    /// Publishes a feed's value and keeps it for subscribers that arrive later.
    func publishRetained(topic: String, value: String) {
        let sequence = publish(topic: topic, value: value)
        retained.retain(topic: topic, value: value, sequence: sequence)
    }

    /// Stops answering snapshots of a feed (it no longer exists).
    func forgetRetained(topic: String) {
        retained.forget(topic: topic)
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
            enqueue(prefix: prefix, sequence: sequence, value: value)
        }
        return sequence
    }

    private func enqueue(prefix: UnsafeRawBufferPointer, sequence: UInt64, value: String) {
        value.withUTF8Bytes { bytes in
            outbox.append(headCapacity: prefix.count + WireMessage.sequenceCapacity, value: bytes) { head in
                WireMessage.encodeHead(prefix: prefix, sequence: sequence, into: head)
            }
        }
        if outbox.count > counters.outboxPeak { counters.outboxPeak = outbox.count }
        if outbox.count >= Self.outboxLimit || outbox.byteCount >= Self.outboxByteLimit { flush() }
    }

    /// Hands every queued message to libzmq, in order. Runs at the end of every reactor turn,
    /// when the outbox reaches its limits, before the counters are read and when the node closes.
    func flush() {
        guard !outbox.isEmpty else { return }
        var published = 0
        var refused = 0
        var failure: (error: any Error, head: [UInt8], unsent: Int)?
        let socket = self.socket
        outbox.drain { head, value in
            // After a failed send (the socket or context is going away) nothing more is sent:
            // a value frame must never follow an unfinished message.
            if failure != nil {
                failure!.unsent += 1
                return
            }
            do {
                // Never refused without ZMQ_XPUB_NODROP (libzmq drops per subscriber and reports
                // success); if it were, nothing of the message would be queued.
                guard try socket.send(head, flags: [.more, .dontWait]) else {
                    refused += 1
                    return
                }
                _ = try socket.send(value, flags: [.dontWait])  // accepted with its head
                published += 1
            } catch {
                failure = (error, Array(head), 1)
            }
        }
        counters.published += published
        if refused > 0 { log.error("publish_refused", ["messages": "\(refused)"]) }
        if let failure {
            let topic = String(decoding: failure.head.prefix { $0 != 0 }, as: UTF8.self)
            log.error("publish_failed", ["topic": topic, "error": "\(failure.error)", "unsent": "\(failure.unsent)"])
        }
    }

    // MARK: - Subscription frames

    /// Reads the subscription frames queued (bounded, for fairness). Each frame is looked at in
    /// libzmq's buffer: a snapshot request on a node without feeds, or an unsubscribe of one,
    /// costs no copy.
    func drainSubscriptionFrames() {
        for _ in 0..<1024 {
            let more: Bool?
            do {
                more = try socket.tryReceive { frames -> Bool in
                    if frames.count == 1 { handle(subscriptionFrame: frames[0]) } else { counters.malformed += 1 }
                    return true
                }
            } catch {
                log.error("receive_failed", ["error": "\(error)"])
                return
            }
            guard more != nil else { return }  // nothing more queued
        }
    }

    private static let snapshotPrefixBytes = Array(WireMessage.snapshotPrefix.utf8)

    /// A subscription frame: a kind byte (1 subscribe, 0 unsubscribe), then the prefix.
    private func handle(subscriptionFrame frame: UnsafeRawBufferPointer) {
        guard let kind = frame.first, kind <= 1 else {
            counters.malformed += 1
            return
        }
        let prefix = UnsafeRawBufferPointer(rebasing: frame[1...])
        if prefix.starts(with: Self.snapshotPrefixBytes) {
            if kind == 1 { serveSnapshot(prefix) }
            return
        }
        count(subscription: SubscriptionBytes(prefix), subscribed: kind == 1)
    }

    private func count(subscription key: SubscriptionBytes, subscribed: Bool) {
        if subscribed {
            if let count = remoteSubscriptions[key] {
                remoteSubscriptions[key] = count + 1
            } else if remoteSubscriptions.count < limits.maxFollows, key.bytes.count <= limits.maxNameBytes + 1 {
                remoteSubscriptions[key] = 1
            } else {
                counters.subscriptionsUntracked += 1
            }
        } else if let count = remoteSubscriptions[key] {
            remoteSubscriptions[key] = count > 1 ? count - 1 : nil
        }
    }

    /// Sends the answer to one snapshot request: each retained value behind the request's tag.
    private func serveSnapshot(_ request: UnsafeRawBufferPointer) {
        // Nothing retained: an empty answer, without a copy or a lookup (follow churn on a node
        // without feeds pays only the frame).
        guard retained.count > 0 else {
            counters.snapshotsServed += 1
            return
        }
        let request = ArraySlice(request)
        guard let answer = retained.answer(request, now: started.duration(to: snapshotClock.now)) else {
            counters.malformed += 1
            return
        }
        counters.snapshotsServed += 1
        counters.snapshotsRefused += answer.refused
        for value in answer.values {
            let prefix = Array(answer.tag) + WireMessage.headPrefix(topic: value.topic, sender: nodeID, epoch: epoch)
            prefix.withUnsafeBytes { enqueue(prefix: $0, sequence: value.sequence, value: value.value) }
        }
    }

    func close() {
        flush()
        socket.close()
    }
}

/// A subscription's bytes as a dictionary key, hashed in one call over the bytes (an array of
/// bytes hashes element by element: the largest cost of a publisher under follow churn).
struct SubscriptionBytes: Hashable {
    let bytes: [UInt8]

    init(_ buffer: UnsafeRawBufferPointer) {
        bytes = Array(buffer)
    }

    /// The subscription to exactly `topic` (its bytes and NUL).
    init(exactTopic topic: String) {
        bytes = Array(topic.utf8) + [0]
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// What a node keeps per topic it publishes.
struct TopicOutput {
    var sequence: UInt64
    /// `topic\0sender epoch `: the first frame up to the sequence.
    let headPrefix: [UInt8]
}
