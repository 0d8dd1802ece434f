import RexCluster

/// Whether a node is ready to take traffic (`GET /readyz`: 200 or 503, what a Kubernetes
/// readiness probe and a rolling update wait for). Pure: decided from a few facts the node
/// reads on its reactor, so the rule is tested on its own.
///
/// Ready when its journal (if it has a data directory) has not failed, and either it expects
/// no company (no configured peer, no seed: a cluster of one that others join) or it has
/// joined: a member spoke to it on the membership since it started, and at least one other
/// member is alive now. Configured members are reported alive from the start, before any has
/// answered, so "alive" alone would make a node ready the moment it starts.
struct NodeReadiness: Equatable {
    /// What the decision is made from.
    struct Facts: Equatable {
        /// Peers configured (a cluster file or `--peer`) or seeds to join through (`--join`).
        var expectsMembers: Bool
        /// Other members the node's membership holds alive now.
        var aliveMembers: Int
        /// Membership messages received from other members since the node started.
        var membershipMessagesReceived: Int
        /// With a data directory: whether the journal still takes actions; nil without one.
        var journalOpen: Bool?
    }

    let ready: Bool
    /// One line for the response body (and an operator reading it).
    let reason: String

    /// A node with no peer and no seed: ready at once.
    static let standalone = Facts(expectsMembers: false, aliveMembers: 0, membershipMessagesReceived: 0, journalOpen: nil)

    static func decide(_ facts: Facts) -> NodeReadiness {
        if facts.journalOpen == false {
            return NodeReadiness(ready: false, reason: "journal failed: operator actions are refused until a restart")
        }
        guard facts.expectsMembers else {
            return NodeReadiness(ready: true, reason: "ready: no peer or seed configured (a cluster of one until others join)")
        }
        guard facts.membershipMessagesReceived > 0 else {
            return NodeReadiness(ready: false, reason: "joining: no other member has answered yet")
        }
        guard facts.aliveMembers > 0 else {
            return NodeReadiness(ready: false, reason: "alone: no other member is alive")
        }
        return NodeReadiness(ready: true, reason: "ready: \(facts.aliveMembers) other member(s) alive")
    }
}

extension NodeMetricsSampler {
    /// The facts of ``NodeReadiness`` as the node holds them now (on the reactor): the
    /// membership's own view, whatever the feature reports.
    func readinessFacts(expectsMembers: Bool) -> NodeReadiness.Facts {
        NodeReadiness.Facts(
            expectsMembers: expectsMembers, aliveMembers: io.membershipStats?.aliveMembers ?? 0,
            membershipMessagesReceived: io.membership?.counters.received ?? 0, journalOpen: journal.map { !$0.hasFailed })
    }
}
