import RexCluster
public import RexControl

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
    /// Milliseconds since the node started when this document was made: the node's control
    /// endpoint sets it on each `state` reply and watch push. The node's own state does not keep
    /// a clock (0 there); times such as a peer's `lastSeenMs` are on the same scale.
    public var nowMs: Int = 0
    /// Operator actions the reducer dropped at a limit of `settings.limits` (the control
    /// endpoint refuses them before they are queued; this counts the ones that raced it).
    public var refused: Int = 0
    /// Change stamps for the node's memoised supervise (history, not data: not encoded, and not
    /// compared by `==`).
    public var revisions = SuperviseRevisions()
    /// The follows by their `from` peer, kept by the node's reducer (derived from `follows`: not
    /// encoded, rebuilt by decoding, compared by `==`).
    public var followsByPeer = FollowsByPeer()

    public init(id: String, settings: NodeSettings = NodeSettings(), peers: [String: Peer] = [:]) {
        self.id = id
        self.settings = settings
        self.peers = peers
    }

    /// Every stored property but the derived `revisions` and `followsByPeer`: a new field must be
    /// listed here to be encoded.
    enum CodingKeys: String, CodingKey {
        case id, settings, feeds, follows, peers, nowMs, refused
    }

    /// The encoded fields, and the from-peer index rebuilt from the follows (a decoded state
    /// re-resolves a peer's follows as the reducer's would). The revisions start at zero.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        settings = try container.decode(NodeSettings.self, forKey: .settings)
        feeds = try container.decode([String: Feed].self, forKey: .feeds)
        follows = try container.decode([String: Follow].self, forKey: .follows)
        peers = try container.decode([String: Peer].self, forKey: .peers)
        nowMs = try container.decode(Int.self, forKey: .nowMs)
        refused = try container.decode(Int.self, forKey: .refused)
        followsByPeer = FollowsByPeer(indexing: follows)
    }

    /// Equal content: every field but `revisions`. The revisions are change stamps, a count of
    /// the reducer's past changes: two states with the same content but built by different
    /// sequences of actions (a restart against the run before it, a test's expected state
    /// against the store's) differ there and are still the same state. The derived
    /// `followsByPeer` is compared, so an index out of step with its follows shows as a
    /// difference.
    public static func == (lhs: NodeState, rhs: NodeState) -> Bool {
        lhs.id == rhs.id && lhs.settings == rhs.settings && lhs.feeds == rhs.feeds && lhs.follows == rhs.follows
            && lhs.peers == rhs.peers && lhs.nowMs == rhs.nowMs && lhs.refused == rhs.refused
            && lhs.followsByPeer == rhs.followsByPeer
    }
}

/// Numbers the node's reducer bumps whenever it changes what a group of channels reads, so the
/// node's supervise compares one number per group instead of re-deriving the group's channels
/// after every membership report or received message (which change counters, never a channel).
///
/// A change stamp, not data: it is not encoded, and `NodeState`'s `==` leaves it out (the memo
/// reads the numbers themselves).
public struct SuperviseRevisions: Sendable {
    /// A follow was added, removed, re-targeted or had its endpoint resolved anew.
    public var follows: UInt64 = 0
    /// A peer was added, removed or moved to another endpoint.
    public var peers: UInt64 = 0
    /// The names of the follows counted in `follows`, so the follows' keyed lift re-derives
    /// only those (SwiftRex's `ElementChangeLog` contract; RexNode declares the conformance).
    public var followChanges = KeyChangeLog(capacity: 16_384)

    public init() {}
}

/// A value this node publishes under a topic.
public struct Feed: Codable, Sendable, Equatable {
    public var value: String

    public init(value: String) {
        self.value = value
    }
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
    /// Live only (not encoded): restored from the node's durable state as it started, and not
    /// followed anew or re-targeted since. Its channel opens without the follow settle, which is
    /// there for flapping topic changes; a follow coming back from the journal is not one.
    public var restoredAtStart = false

    public init(topic: String, from: String? = nil, endpoint: String? = nil) {
        self.topic = topic
        self.from = from
        self.endpoint = endpoint
    }

    /// Followed anew: the topic, peer and resolved endpoint it has now. A new subscription (topic
    /// or peer) starts its sequences over, so gaps count within one subscription; and a follow
    /// followed anew after start settles its channel's changes again.
    public mutating func retarget(topic: String, from: String?, endpoint: String?) {
        if self.topic != topic || self.from != from {
            senders = [:]
            streams = 0
        }
        self.topic = topic
        self.from = from
        self.endpoint = endpoint
        restoredAtStart = false
    }

    /// Every stored property but `restoredAtStart`: a new field must be listed here to be encoded.
    enum CodingKeys: String, CodingKey {
        case topic, from, endpoint, lastValue, lastTopic, lastSender, count, gaps, duplicates, reordered, restarts, evicted
        case senders, streams
    }
}

/// What one follow remembers of one sender: the epoch it announced (new on every start of that
/// node) and the last sequence it sent per topic.
public struct SenderSequences: Codable, Sendable, Equatable {
    public var epoch: UInt64
    public var lastSequence: [String: UInt64]
    /// The follow's `count` when this sender was last heard (the least recent is evicted first).
    public var heardAt: Int

    public init(epoch: UInt64, lastSequence: [String: UInt64], heardAt: Int) {
        self.epoch = epoch
        self.lastSequence = lastSequence
        self.heardAt = heardAt
    }
}
