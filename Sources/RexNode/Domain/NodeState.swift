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
    public var lastValue: String?
    public var lastTopic: String?
    public var lastSender: String?
    public var count: Int = 0
    /// Messages missed, counted from per-sender, per-topic sequence numbers.
    public var gaps: Int = 0
    /// The last sequence seen, by sender, then topic.
    public var lastSequence: [String: [String: UInt64]] = [:]

    public init(topic: String, from: String? = nil, endpoint: String? = nil) {
        self.topic = topic
        self.from = from
        self.endpoint = endpoint
    }
}

extension Follow {
    /// Counts the messages missed before `sequence` from `sender` on `topic` and remembers it.
    ///
    /// Every received message goes through here: one hash lookup per level, values updated in
    /// place (a keyed `[sender][topic]` read plus write would hash four times).
    mutating func recordSequence(_ sequence: UInt64, sender: String, topic: String) {
        guard let senderIndex = lastSequence.cheapIndex(forKey: sender) else {
            // Sequences start at 1: a 0 (a foreign publisher, a wrapped counter) is not remembered.
            if sequence > 0 { lastSequence[sender] = [topic: sequence] }
            return
        }
        let gaps = lastSequence.values[senderIndex].record(sequence, for: topic)
        self.gaps += gaps
    }
}

extension [String: UInt64] {
    /// Keeps the highest sequence per key; returns how many sequences were skipped before this one.
    fileprivate mutating func record(_ sequence: UInt64, for key: String) -> Int {
        guard let index = cheapIndex(forKey: key) else {
            if sequence > 0 { self[key] = sequence }
            return 0
        }
        let last = values[index]
        guard sequence > last else { return 0 }
        values[index] = sequence
        return Int(sequence - last - 1)
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
    /// Heartbeats missed, from their sequence numbers.
    public var gaps: Int = 0

    public init(endpoint: String) {
        self.endpoint = endpoint
    }
}
