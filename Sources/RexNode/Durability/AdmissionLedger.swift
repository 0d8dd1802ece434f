import RexControl

/// Which feeds, follows and peers a node holds once every accepted operator action is applied:
/// the limit check at the moment of acceptance, exact.
///
/// The store's state lags the control endpoint by the actions still queued (and, with a
/// journal, by the ones waiting for their commit), so a check against it lets two new follows
/// pass where one fits. The journal may only hold actions the reducer will apply — or the state
/// a restart rebuilds would differ from the live one — so acceptance is decided here, by the
/// reducer's own rules, on the keys alone.
struct AdmissionLedger {
    private var feeds: Set<String>
    private var follows: Set<String>
    private var peers: Set<String>

    init(_ state: NodeState) {
        feeds = Set(state.feeds.keys)
        follows = Set(state.follows.keys)
        peers = Set(state.peers.keys)
    }

    /// Counts the peers the SWIM membership put into `state` (it reports members straight to the
    /// store, not through the control endpoint). Call before admitting an `addPeer`: without
    /// them the ledger would admit a peer the reducer then refuses at the limit, and the journal
    /// would hold an action the live node never applied.
    ///
    /// Never under-counts: a member stays counted even while an operator's `removePeer` of it
    /// waits to be applied, so the ledger may refuse an `addPeer` the reducer would have taken,
    /// never the other way round.
    mutating func countMembers(of state: NodeState) {
        for (id, peer) in state.peers where peer.membership != nil { peers.insert(id) }
    }

    /// Records `action` when the reducer will apply it; throws `limitReached` (recording
    /// nothing) when the reducer would refuse it.
    mutating func admit(_ action: NodeAction, limits: NodeLimits, node: String) throws(ControlError) {
        switch action {
        case .set(let topic, _):
            if !feeds.contains(topic) {
                guard feeds.count < limits.maxFeeds else {
                    throw ControlError(.limitReached, "node \(node) holds \(limits.maxFeeds) feeds, its limit (--max-feeds)")
                }
                feeds.insert(topic)
            }
        case .unset(let topic): feeds.remove(topic)
        case .follow(let name, _, _):
            if !follows.contains(name) {
                guard follows.count < limits.maxFollows else {
                    throw ControlError(.limitReached, "node \(node) holds \(limits.maxFollows) follows, its limit (--max-follows)")
                }
                follows.insert(name)
            }
        case .unfollow(let name): follows.remove(name)
        case .addPeer(let id, _):
            if !peers.contains(id) {
                guard peers.count < limits.maxPeers else {
                    throw ControlError(.limitReached, "node \(node) knows \(limits.maxPeers) peers, its limit (--max-peers)")
                }
                peers.insert(id)
            }
        case .removePeer(let id): peers.remove(id)
        case .publish, .received, .membershipTimer, .memberChanged: break
        }
    }
}
