import RexCluster
import RexControl
import RexFeeds
import Testing

@testable import rexctl

/// `rexctl nodes` under the SWIM membership: dead and left apart (not both `gone`), the
/// incarnation peers heard, and the JSON documents extended (not changed) with both.
@Suite struct NodesMembershipTests {
    static let addresses = ["n1", "n2", "n3", "n4"].enumerated().map { index, id in
        NodeAddress(id: id, control: "tcp://127.0.0.1:\(7201 + index)", pub: "tcp://127.0.0.1:\(7101 + index)")
    }

    /// n1 and n2 answer; n1 sees n2 alive at 0, n3 dead at 7 and n4 left at 9; n2 sees n1 suspect
    /// at 3 and n3 dead at 5 (n4 unreported).
    static func reports() -> [NodesCommand.Report] {
        func peer(_ index: Int, _ status: Peer.MembershipStatus, _ incarnation: UInt64) -> Peer {
            var peer = Peer(endpoint: addresses[index].pub!)
            peer.status = status.peerStatus
            peer.membership = status
            peer.incarnation = incarnation
            return peer
        }
        var n1 = NodeState(id: "n1")
        n1.peers = ["n2": peer(1, .alive, 0), "n3": peer(2, .dead, 7), "n4": peer(3, .left, 9)]
        var n2 = NodeState(id: "n2")
        n2.peers = ["n1": peer(0, .suspect, 3), "n3": peer(2, .dead, 5)]
        return addresses.enumerated().map { index, address in
            let answered = index < 2
            let ping = PingDocument(node: address.id, uptimeMs: 1000, pub: address.pub!, control: address.control, pid: 1)
            return NodesCommand.Report(
                node: address,
                ping: answered ? .success(ping) : .failure(NodeRequestError(node: address, kind: .unreachable(timeout: .seconds(1)))),
                state: index == 0 ? n1 : index == 1 ? n2 : nil)
        }
    }

    @Test func theTableShowsDeadAndLeftWithIncarnations() {
        let rows = NodesCommand.table(Self.reports()).render().split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        }
        #expect(rows[0] == ["ID", "CONTROL", "PUB", "REACHABLE", "STATUS", "INCARNATION", "CHANNELS", "UPTIME"])
        #expect(Array(rows[1][3...5]) == ["yes", "suspect", "3"])
        #expect(Array(rows[2][3...5]) == ["yes", "alive", "0"])
        #expect(Array(rows[3][3...5]) == ["no", "dead", "7"], "both see n3 dead; the highest incarnation heard")
        #expect(Array(rows[4][3...5]) == ["no", "left", "9"])
    }

    @Test func mixedViewsAreCountedWithDeadAndLeftApart() {
        var reports = Self.reports()
        let dead = reports[0].state?.peers["n3"]
        reports[1].state?.peers["n4"] = dead
        #expect(NodesCommand.statusSeenByPeers("n4", in: reports) == "dead:1,left:1")
        // A peer the membership has not reported on (an add-peer of a non-member) is unknown.
        reports[1].state?.peers["n4"] = Peer(endpoint: "e")
        #expect(NodesCommand.statusSeenByPeers("n4", in: reports) == "left:1,unknown:1")
    }

    @Test func jsonKeepsSeenByAndAddsMembership() {
        let documents = NodesCommand.documents(Self.reports()).map(\.text)
        // `seenBy` as before (dead and left are `gone` there); `membership` after it, by observer.
        #expect(documents[2].contains(#""seenBy":{"n1":"gone","n2":"gone"}"#), "\(documents[2])")
        #expect(
            documents[2].contains(#""membership":{"n1":{"status":"dead","incarnation":7},"n2":{"status":"dead","incarnation":5}}"#),
            "\(documents[2])")
        #expect(documents[3].contains(#""membership":{"n1":{"status":"left","incarnation":9}}"#), "\(documents[3])")
        // A node nobody's membership reported on has no `membership` member.
        var unreported = Self.reports()
        for index in unreported.indices {
            let peers = unreported[index].state?.peers.mapValues { Peer(endpoint: $0.endpoint) } ?? [:]
            unreported[index].state?.peers = peers
        }
        #expect(!NodesCommand.documents(unreported).map(\.text).contains { $0.contains("membership") })
    }
}
