/// Everything a node knows, as plain Codable data: the single source its channels derive from.
public struct NodeState: Codable, Sendable, Equatable {
    public var id: String
    public var settings: NodeSettings
    /// Local values published by this node, by topic.
    public var feeds: [String: Feed] = [:]
    /// Subscriptions, by follow name.
    public var follows: [String: Follow] = [:]
    /// Other nodes this node connects to, by id.
    public var peers: [String: Peer] = [:]
    /// Milliseconds since the node started, as of the last heartbeat tick.
    public var nowMs: Int = 0
    /// Operator actions the reducer dropped at a limit of `settings.limits` (the control
    /// endpoint refuses them before they are queued; this counts the ones that raced it).
    public var refused: Int = 0

    public init(id: String, settings: NodeSettings = NodeSettings(), peers: [String: Peer] = [:]) {
        self.id = id
        self.settings = settings
        self.peers = peers
    }
}

/// A value this node publishes under a topic.
public struct Feed: Codable, Sendable, Equatable {
    public var value: String
}

/// A named subscription to a topic (or a prefix: a topic ending in `*`).
public struct Follow: Codable, Sendable, Equatable {
    public var topic: String
    /// Follow one peer only, over a dedicated socket; nil: every connected peer.
    public var from: String?
    /// The endpoint of `from`, resolved from `peers` (nil while that peer is unknown).
    public var endpoint: String?
    /// The newest accepted message: a duplicate or an older message never replaces it.
    public var lastValue: String?
    public var lastTopic: String?
    public var lastSender: String?
    /// Messages accepted (each new in its sender's and topic's sequence).
    public var count: Int = 0
    /// Messages missed, counted from per-sender, per-topic sequence numbers (saturating).
    public var gaps: Int = 0
    /// Messages whose sequence was already seen, and messages older than one already seen:
    /// counted and dropped.
    public var duplicates: Int = 0
    public var reordered: Int = 0
    /// Senders heard with a new epoch (a restarted publisher): their tracking started over.
    public var restarts: Int = 0
    /// Streams forgotten to stay within `NodeLimits.maxStreamsPerFollow`.
    public var evicted: Int = 0
    /// Per sender: its epoch and the last sequence per topic.
    public var senders: [String: SenderSequences] = [:]
    /// The (sender, topic) pairs `senders` holds.
    public var streams: Int = 0

    public init(topic: String, from: String? = nil, endpoint: String? = nil) {
        self.topic = topic
        self.from = from
        self.endpoint = endpoint
    }
}

/// What one follow remembers of one sender: the epoch it announced (new on every start of that
/// node) and the last sequence it sent per topic.
public struct SenderSequences: Codable, Sendable, Equatable {
    public var epoch: UInt64
    public var lastSequence: [String: UInt64]
    /// The follow's `count` when this sender was last heard (the least recent is evicted first).
    public var heardAt: Int
}

extension Follow {
    /// Records messages one read brought, oldest first: each is accepted, or counted and dropped
    /// as a duplicate or an older message. Returns how many were accepted; `lastValue` becomes
    /// the newest accepted one's.
    @discardableResult
    mutating func record(_ messages: [Received], streamLimit: Int) -> Int {
        var newest: Int?
        var accepted = 0
        for index in messages.indices {
            let message = messages[index]
            guard recordSequence(message.sequence, epoch: message.epoch, sender: message.sender, topic: message.topic,
                                 snapshot: message.isSnapshot, streamLimit: streamLimit) else { continue }
            accepted += 1
            newest = index
        }
        if let newest {
            let message = messages[newest]
            lastValue = message.value
            lastTopic = message.topic
            lastSender = message.sender
        }
        return accepted
    }

    /// Whether the message `sequence` of `sender` on `topic` is new, counting what it says:
    /// skipped sequences (gaps), a repeat (duplicate), an older one (reordered), a new epoch
    /// (restart). A snapshot (a retained value sent to a late joiner) that is not new is dropped
    /// without being counted: the follower already had it live.
    ///
    /// Every received message goes through here: one hash lookup per level, values updated in
    /// place (a keyed `[sender][topic]` read plus write would hash four times).
    mutating func recordSequence(
        _ sequence: UInt64, epoch: UInt64, sender: String, topic: String, snapshot: Bool = false, streamLimit: Int
    ) -> Bool {
        guard let senderIndex = senders.cheapIndex(forKey: sender) else {
            count += 1
            senders[sender] = SenderSequences(epoch: epoch, lastSequence: [topic: sequence], heardAt: count)
            streams += 1
            evictIfOver(streamLimit, keeping: sender, topic)
            return true
        }
        if senders.values[senderIndex].epoch != epoch {
            // The sender restarted: its old numbers mean nothing now.
            count += 1
            streams -= senders.values[senderIndex].lastSequence.count - 1
            senders.values[senderIndex] = SenderSequences(epoch: epoch, lastSequence: [topic: sequence], heardAt: count)
            restarts += 1
            return true
        }
        switch senders.values[senderIndex].lastSequence.record(sequence, for: topic) {
        case .first:
            count += 1
            senders.values[senderIndex].heardAt = count
            streams += 1
            evictIfOver(streamLimit, keeping: sender, topic)
            return true
        case .next(let skipped):
            count += 1
            senders.values[senderIndex].heardAt = count
            let (sum, overflow) = gaps.addingReportingOverflow(Int(clamping: skipped))
            gaps = overflow ? Int.max : sum
            return true
        case .repeated:
            if !snapshot { duplicates += 1 }
            return false
        case .older:
            if !snapshot { reordered += 1 }
            return false
        }
    }

    /// Forgets the least recently heard sender other than `sender` while over `limit` streams;
    /// when `sender` is the only one, forgets its topics other than `topic` instead.
    private mutating func evictIfOver(_ limit: Int, keeping sender: String, _ topic: String) {
        while streams > max(limit, 1) {
            var oldest: Dictionary<String, SenderSequences>.Index?
            for index in senders.indices where senders.keys[index] != sender {
                if oldest == nil || senders.values[index].heardAt < senders.values[oldest!].heardAt { oldest = index }
            }
            if let oldest {
                let forgotten = senders.values[oldest].lastSequence.count
                senders.remove(at: oldest)
                streams -= forgotten
                evicted += forgotten
                continue
            }
            guard let only = senders.index(forKey: sender) else { return }
            guard let victim = Self.anyTopic(of: senders.values[only], except: topic) else { return }
            senders.values[only].lastSequence[victim] = nil
            streams -= 1
            evicted += 1
        }
    }
}

extension Follow {
    /// A topic of `sequences` other than `topic`, if there is one.
    fileprivate static func anyTopic(of sequences: SenderSequences, except topic: String) -> String? {
        sequences.lastSequence.keys.first { $0 != topic }
    }
}

/// Where a sequence stands against the last one of its stream.
enum SequenceStep: Equatable {
    /// The stream's first message.
    case first
    /// Newer than the last, after `skipped` missed ones.
    case next(skipped: UInt64)
    case repeated
    case older
}

extension [String: UInt64] {
    /// Keeps the highest sequence per key and says where `sequence` stands.
    fileprivate mutating func record(_ sequence: UInt64, for key: String) -> SequenceStep {
        guard let index = cheapIndex(forKey: key) else {
            self[key] = sequence
            return .first
        }
        let last = values[index]
        guard sequence > last else { return sequence == last ? .repeated : .older }
        values[index] = sequence
        return .next(skipped: sequence - last - 1)   // no overflow: sequence > last
    }
}

extension Dictionary where Key == String {
    /// `index(forKey:)` that compares instead of hashing when the dictionary has one entry —
    /// the usual case here: a follow hears one sender on one topic, and hashing a string costs
    /// more than comparing it.
    fileprivate func cheapIndex(forKey key: String) -> Index? {
        if count == 1 {
            let only = startIndex
            return keys[only] == key ? only : nil
        }
        return index(forKey: key)
    }
}

/// Another node, as seen through its heartbeats.
public struct Peer: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        /// No heartbeat heard yet.
        case unknown
        case alive
        /// Two heartbeat intervals missed.
        case suspect
        /// Five heartbeat intervals missed.
        case gone
    }

    public var endpoint: String
    public var status: Status = .unknown
    public var lastSeenMs: Int?
    public var lastHeartbeat: UInt64?
    /// The epoch of the peer's heartbeats: new each time that node starts.
    public var epoch: UInt64?
    /// Heartbeats missed, from their sequence numbers (saturating).
    public var gaps: Int = 0
    /// Times the peer was heard with a new epoch after an earlier one (restarts).
    public var restarts: Int = 0

    public init(endpoint: String) {
        self.endpoint = endpoint
    }

    /// A heartbeat numbered `sequence` in the peer's `epoch`: a new epoch starts the count over,
    /// skipped numbers are gaps, and a repeated or older number (a replay) changes nothing.
    mutating func recordHeartbeat(epoch: UInt64, sequence: UInt64, atMs: Int) {
        if let known = self.epoch, known == epoch, let last = lastHeartbeat {
            guard sequence > last else { return }
            let (sum, overflow) = gaps.addingReportingOverflow(Int(clamping: sequence - last - 1))
            gaps = overflow ? Int.max : sum
        } else if self.epoch != nil, self.epoch != epoch {
            restarts += 1
        }
        self.epoch = epoch
        lastHeartbeat = sequence
        lastSeenMs = atMs
        status = .alive
    }
}
