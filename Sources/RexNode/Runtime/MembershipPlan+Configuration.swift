import Foundation
import RexCluster

extension MembershipPlan {
    /// The SWIM membership of a node at `address`: its configured members (each needs both
    /// endpoints), an incarnation above any earlier run's (the wall clock in ms) and a random seed.
    init(_ configuration: NodeConfiguration, address: MemberAddress) {
        var members: [String: MemberAddress] = [:]
        for (id, membership) in configuration.membershipPeers {
            if let pub = configuration.peers[id] { members[id] = MemberAddress(membership: membership, pub: pub) }
        }
        let wallMilliseconds = UInt64(clamping: Int64(Date().timeIntervalSince1970 * 1000))
        self.init(
            address: address, incarnation: wallMilliseconds, seed: UInt64.random(in: 0...UInt64.max), members: members,
            seeds: configuration.membershipSeeds)
        // Validated to 20...10,000 ms, so neither product can overflow.
        settings.protocolPeriod = .milliseconds(configuration.membershipPeriodMs)
        settings.pingTimeout = .milliseconds(configuration.membershipPeriodMs * 2 / 5)
        // Incarnations are start times in ms: one a day ahead of this node's clock is a forgery.
        settings.maxIncarnationLead = MembershipPlan.incarnationLead
    }
}

extension MembershipPlan {
    /// How far ahead of a node's clock an incarnation may be (clock skew between hosts, and
    /// refutations, each one more): a day.
    static let incarnationLead = Duration.seconds(86_400)
}
