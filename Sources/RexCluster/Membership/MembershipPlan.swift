package import RexControl
package import RexMembership
import Synchronization

/// How a node runs the SWIM membership (`RexMembership`), its only membership: who it is on the
/// membership path and whom it knows from the start. Part of `ClusterEnvironment`.
package struct MembershipPlan: Sendable {
    /// This node's address as the membership carries it (see `MemberAddress`).
    package var address: MemberAddress
    /// Above any incarnation this node used before (the start time in ms): a restarted node
    /// overrides its own tombstone at once.
    package var incarnation: UInt64
    /// The machine's only randomness (probe order, phase, jitter).
    package var seed: UInt64
    package var settings = MembershipSettings()
    /// Members known from configuration (a cluster file or `--peer`), by id: added as alive, then
    /// probed (so one that never answers turns suspect, then dead).
    package var members: [String: MemberAddress] = [:]
    /// Membership endpoints of running members to join through (`rexnode --join`): the node asks
    /// them until one answers with its table.
    package var seeds: [String] = []
    /// The only member ids the machine takes (a secured node: the cluster members with a key);
    /// nil: any (a plain node). See `Membership.admittedIDs`.
    package var admittedIDs: Set<String>?
    /// Where the running machine leaves its counters (metrics and tests read them).
    package let stats = MembershipStats()

    package init(
        address: MemberAddress, incarnation: UInt64, seed: UInt64, members: [String: MemberAddress] = [:], seeds: [String] = []
    ) {
        self.address = address
        self.incarnation = incarnation
        self.seed = seed
        self.members = members
        self.seeds = seeds
    }
}

/// The membership machine's counters, and how many other members it holds alive, as of its last
/// event, readable from any thread.
package final class MembershipStats: Sendable {
    private let latest = Mutex((counters: MembershipCounters(), alive: 0))

    package var counters: MembershipCounters { latest.withLock { $0.counters } }
    /// Other members alive (a node's readiness reads it).
    package var aliveMembers: Int { latest.withLock { $0.alive } }

    package func record(_ counters: MembershipCounters, aliveMembers: Int = 0) { latest.withLock { $0 = (counters, aliveMembers) } }
}

/// A member's address on the membership: its membership endpoint and its publisher, in one
/// opaque string `"MEMBERSHIP PUB"` (≤ `MembershipWire.maxAddressBytes`), so that whoever learns a
/// member by gossip can both probe it and follow its data.
package struct MemberAddress: Hashable, Sendable {
    package var membership: String
    package var pub: String

    package init(membership: String, pub: String) {
        self.membership = membership
        self.pub = pub
    }

    /// Reads `"MEMBERSHIP PUB"`; nil for anything else (an address gossiped by a forger).
    package init?(_ text: String) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        membership = String(parts[0])
        pub = String(parts[1])
    }

    package var text: String { membership + " " + pub }
}

extension Peer.MembershipStatus {
    /// A membership machine's status as the node's state records it.
    package init(_ status: MemberStatus) {
        switch status {
        case .alive: self = .alive
        case .suspect: self = .suspect
        case .dead: self = .dead
        case .left: self = .left
        }
    }
}

extension Peer {
    /// Whether the node keeps a data-plane connection to this peer: while the membership has it
    /// alive or suspect (it declares dead members and brings them back when they refute), and for
    /// a peer it has not reported (an operator's `add-peer` of a publisher that is not a member).
    package var isConnectable: Bool { incarnation == nil || status != .gone }

    /// The endpoint a follow `from` this peer subscribes to: none while it is not connectable.
    package var reachableEndpoint: String? { isConnectable ? endpoint : nil }
}
