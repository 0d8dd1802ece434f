public import RexCluster
import RexControl
public import SwiftRex

extension NodeFeature {
    /// A node's configured state: its id, settings and configured peers.
    public static func initialState(_ node: NodeStart) -> NodeState {
        NodeState(id: node.id, settings: node.settings, peers: node.peers.mapValues { Peer(endpoint: $0) })
    }

    /// The configured state with the journal's operator actions restored (``DurableState``).
    public static func restore(_ accepted: OperatorActionFold<NodeAction, NodeState>, onto initial: NodeState) -> NodeState {
        DurableState(accepted).restore(onto: initial)
    }

    /// The state with the node's clock, as `state` replies and watch pushes carry it.
    public static func stamped(_ state: NodeState, nowMs: Int) -> NodeState {
        var stamped = state
        stamped.nowMs = nowMs
        return stamped
    }

    /// The refused actions, the peers and the follows' counters.
    public static func report(_ state: NodeState) -> FeatureReport {
        FeatureReport(refusedActions: state.refused, peers: Array(state.peers.values), follows: FollowCounters(state.follows))
    }

    /// Feeds, follows, peers, the membership and the publisher (``ChannelKind``).
    public static var channelClassifier: ChannelClassifier? { ChannelKind.classifier }
}

extension FollowCounters {
    /// The counters of `follows`, summed.
    ///
    /// One pass that reads each follow in place through the dictionary's indices: iterating the
    /// values copies every follow (its strings and sender table retained and released).
    package init(_ follows: [String: Follow]) {
        self.init()
        let values = follows.values
        var index = values.startIndex
        while index != values.endIndex {
            add(
                gaps: values[index].gaps, duplicates: values[index].duplicates, reordered: values[index].reordered,
                restarts: values[index].restarts, evicted: values[index].evicted)
            values.formIndex(after: &index)
        }
    }
}
