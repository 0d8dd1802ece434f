/// Timing knobs of a node, part of its state so an operator sees them.
public struct NodeSettings: Codable, Sendable, Equatable {
    /// At most one message per feed per interval (the last value always goes out).
    public var feedIntervalMs: Int
    /// How long a follow's topic must stay unchanged before its subscription (re)opens.
    public var followSettleMs: Int
    /// Heartbeat period; a peer is suspect after 2 missed beats and gone after 5.
    public var heartbeatIntervalMs: Int

    public init(feedIntervalMs: Int = 100, followSettleMs: Int = 50, heartbeatIntervalMs: Int = 500) {
        self.feedIntervalMs = feedIntervalMs
        self.followSettleMs = followSettleMs
        self.heartbeatIntervalMs = heartbeatIntervalMs
    }

    var feedInterval: Duration { .milliseconds(feedIntervalMs) }
    var followSettle: Duration { .milliseconds(followSettleMs) }
    var heartbeatInterval: Duration { .milliseconds(heartbeatIntervalMs) }
}
