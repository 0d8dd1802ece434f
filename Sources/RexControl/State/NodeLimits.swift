/// Bounds on everything a node accepts from outside — control requests, peers' messages and
/// subscriptions — so that no input can exhaust its memory or stall its reactor.
///
/// Part of `NodeSettings` (and so of the state an operator reads). What happens over a limit is
/// always a refusal that leaves accepted state alone: an error reply on the control endpoint, or
/// a counted drop on the data plane (`rexctl metrics` shows the counts).
public struct NodeLimits: Codable, Sendable, Equatable {
    /// The longest topic, follow name, peer id, sender id or endpoint, in UTF-8 bytes.
    public var maxNameBytes: Int
    /// The largest value of a feed or a published message, in bytes. A received message with a
    /// larger value is dropped and counted (`messages.oversized`).
    public var maxValueBytes: Int
    /// The largest control request, in bytes: a larger one gets a `tooLarge` error reply. libzmq
    /// drops the connection of a client whose frame exceeds four times this, before reading it.
    public var maxRequestBytes: Int
    /// The largest control reply, in bytes: a `state` or `keep` that would be larger is refused
    /// with `tooLarge` (ask for a page with `limit`).
    public var maxReplyBytes: Int
    /// Feeds, follows and peers a node holds at most; a `set`, `follow` or `addPeer` of a new one
    /// beyond the limit is refused with `limitReached`.
    public var maxFeeds: Int
    public var maxFollows: Int
    public var maxPeers: Int
    /// The (sender, topic) streams whose sequence one follow remembers; past it the least recently
    /// heard sender is forgotten (counted in the follow's `evicted`).
    public var maxStreamsPerFollow: Int
    /// Messages queued per subscriber (send side) and per connected peer (receive side) before
    /// libzmq drops for that subscriber only. With `maxValueBytes` this bounds the memory one slow
    /// or stalled subscriber can hold: about `queueMessages × maxValueBytes`.
    public var queueMessages: Int
    /// Retained values sent per second at most in answer to snapshot requests (late joiners);
    /// requests beyond it are refused and counted (`snapshots.refused`).
    public var snapshotMessagesPerSecond: Int

    public init(
        maxNameBytes: Int = 256, maxValueBytes: Int = 16 * 1024, maxRequestBytes: Int = 1 << 20,
        maxReplyBytes: Int = 64 << 20, maxFeeds: Int = 10_000, maxFollows: Int = 200_000, maxPeers: Int = 1_000,
        maxStreamsPerFollow: Int = 1_024, queueMessages: Int = 10_000, snapshotMessagesPerSecond: Int = 20_000
    ) {
        self.maxNameBytes = maxNameBytes
        self.maxValueBytes = maxValueBytes
        self.maxRequestBytes = maxRequestBytes
        self.maxReplyBytes = maxReplyBytes
        self.maxFeeds = maxFeeds
        self.maxFollows = maxFollows
        self.maxPeers = maxPeers
        self.maxStreamsPerFollow = maxStreamsPerFollow
        self.queueMessages = queueMessages
        self.snapshotMessagesPerSecond = snapshotMessagesPerSecond
    }
}
