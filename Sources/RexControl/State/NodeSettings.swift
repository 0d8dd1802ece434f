/// Timing knobs and limits of a node, part of its state so an operator sees them.
public struct NodeSettings: Codable, Sendable, Equatable {
    /// At most one message per feed per interval (the last value always goes out).
    public var feedIntervalMs: Int
    /// How long a follow's topic must stay unchanged before its subscription (re)opens.
    public var followSettleMs: Int
    /// What the node accepts from outside at most.
    public var limits: NodeLimits

    public init(
        feedIntervalMs: Int = 100, followSettleMs: Int = 50, limits: NodeLimits = NodeLimits()
    ) {
        self.feedIntervalMs = feedIntervalMs
        self.followSettleMs = followSettleMs
        self.limits = limits
    }
}
