import RexCluster
import RexFeeds
import SwiftRex

/// What a channel of a node is for, told from its id (the ids `NodeFeature` gives): the `kind`
/// label of `rexnode_channels_live` and the metrics document's `channels.liveByKind`.
enum ChannelKind: String, Sendable, CaseIterable {
    case feed, follow, peer, membership, publisher

    /// The kind of the channel with this id. Follows are the only lifted channels (their ids are
    /// element-scoped, not strings); every other id is one of `NodeFeature`'s strings.
    init(id: AnyHashableSendable) {
        guard let text = id.base as? String else {
            self = .follow
            return
        }
        switch text {
        case NodeFeature.publisherID: self = .publisher
        case NodeFeature.membershipID: self = .membership
        case _ where text.hasPrefix(Self.feedPrefix): self = .feed
        case _ where text.hasPrefix(Self.peerPrefix): self = .peer
        default: self = .follow
        }
    }

    /// `feed[` and `peer[`: what `NodeFeature.feedID(_:)` and `peerID(_:)` put before the name.
    private static let feedPrefix = String(NodeFeature.feedID("").dropLast())
    private static let peerPrefix = String(NodeFeature.peerID("").dropLast())

    /// The engine's classifier for a node's store: channel opens, cancels and recreates counted
    /// by kind (`ReconcileCounters.byClass`, in `allCases` order), for
    /// `rexnode_channel_opens_total{kind}` and its siblings.
    static let classifier = ChannelClassifier(classes: allCases.map(\.rawValue)) { id in
        allCases.firstIndex(of: ChannelKind(id: id)) ?? 0
    }

    /// Opens, cancels and recreates by kind, from a store run with `classifier` (nil without it).
    static func lifecycleCounts(_ counters: ReconcileCounters) -> (opens: [String: Int], cancels: [String: Int], recreates: [String: Int])?
    {
        guard !counters.byClass.isEmpty else { return nil }
        var opens: [String: Int] = [:], cancels: [String: Int] = [:], recreates: [String: Int] = [:]
        for counts in counters.byClass {
            opens[counts.name] = counts.opens
            cancels[counts.name] = counts.cancels
            recreates[counts.name] = counts.recreates
        }
        return (opens, cancels, recreates)
    }

    /// Live channels by kind, every kind present (zero when none is live), from the per-class
    /// counters of a store run with `classifier` (nil without it): live instances of a class are
    /// its opens less its cancels (a recreate is one of each), so this costs O(kinds) where
    /// counting a keep snapshot walks every channel.
    static func liveCounts(_ counters: ReconcileCounters) -> [String: Int]? {
        guard !counters.byClass.isEmpty else { return nil }
        var counts = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, 0) })
        for kind in counters.byClass { counts[kind.name] = kind.opens - kind.cancels }
        return counts
    }
}
