import RexCluster
package import SwiftRex

/// What a channel of a node is for, told from its id (the ids `NodeFeature` gives): the `kind`
/// label of `rexnode_channels_live` and the metrics document's `channels.liveByKind`.
package enum ChannelKind: String, Sendable, CaseIterable {
    case feed, follow, peer, membership, publisher

    /// The kind of the channel with this id. Follows are the only lifted channels (their ids are
    /// element-scoped, not strings); every other id is one of `NodeFeature`'s strings.
    package init(id: AnyHashableSendable) {
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
    package static let classifier = ChannelClassifier(classes: allCases.map(\.rawValue)) { id in
        allCases.firstIndex(of: ChannelKind(id: id)) ?? 0
    }
}
