public import RexControl

/// What a node's metrics read from its feature's state (``ClusterFeature/report(_:)``): actions
/// the reducer refused at a limit, the members it knows and what its follows counted. A feature
/// that keeps none of these reports the zero values.
public struct FeatureReport: Sendable, Equatable {
    /// Operator actions the reducer dropped at a limit of the node's settings.
    public var refusedActions = 0
    /// The members the feature knows, with their status.
    public var peers: [Peer] = []
    /// Its follows' message counters, summed.
    public var follows = FollowCounters()

    /// A report of these counts.
    public init(refusedActions: Int = 0, peers: [Peer] = [], follows: FollowCounters = FollowCounters()) {
        self.refusedActions = refusedActions
        self.peers = peers
        self.follows = follows
    }
}

/// Message counters summed over a feature's follows, saturating at `Int.max` (counters from
/// hostile peers may be huge).
public struct FollowCounters: Sendable, Equatable {
    /// Sequences skipped: messages lost on the way.
    public var gaps = 0
    /// Messages received twice.
    public var duplicates = 0
    /// Messages older than one already taken.
    public var reordered = 0
    /// A sender's new epoch: it restarted.
    public var restarts = 0
    /// Senders forgotten past the per-follow limit.
    public var evicted = 0

    /// All zero.
    public init() {}

    /// Adds one follow's counters.
    public mutating func add(gaps: Int, duplicates: Int, reordered: Int, restarts: Int, evicted: Int) {
        Self.add(gaps, to: &self.gaps)
        Self.add(duplicates, to: &self.duplicates)
        Self.add(reordered, to: &self.reordered)
        Self.add(restarts, to: &self.restarts)
        Self.add(evicted, to: &self.evicted)
    }

    private static func add(_ value: Int, to total: inout Int) {
        let (sum, overflow) = total.addingReportingOverflow(value)
        total = overflow ? Int.max : sum
    }
}
