import Foundation
import RexCluster
import RexControl
import RexFeeds
import Testing

/// The SWIM membership's section of the metrics: JSON by extension, and its Prometheus families.
@Suite struct MembershipMetricsTests {
    static func document(membership: MetricsDocument.Membership?) -> MetricsDocument {
        var document = MetricsDocument(
            uptimeMs: 1500,
            reconcile: .init(
                cycles: 3, changedCycles: 1, lastMs: 0.1, maxMs: 2, buildMs: 1.5, diffMs: 1, p50Ms: 0.1, p99Ms: 2, histogram: []),
            channels: .init(opens: 4, cancels: 1, recreates: 0, live: 3),
            messages: .init(
                published: 7, received: 6, malformed: 0, oversized: 0, gaps: 2, duplicates: 1,
                reordered: 0, restarts: 0, evicted: 0),
            snapshots: .init(served: 0, refused: 0), limits: .init(refusedActions: 0, subscriptionsUntracked: 0),
            mailbox: .init(depth: 0, maxDepth: 5), sockets: .init(open: 2, created: 0),
            process: .init(rssBytes: 1 << 20, fds: 9), members: .init(alive: 2, gone: 2))
        document.membership = membership
        return document
    }

    static let membership = MetricsDocument.Membership(
        members: .init(alive: 2, suspect: 1, dead: 1, left: 1), sent: 40, received: 38,
        dropped: ["oversized": 2, "sender_mismatch": 1, "bad_frames": 3], probesSent: 20, probesFailed: 1, suspicionsRefuted: 1)

    @Test func membersByMembershipStatusReplaceTheHeartbeatStatuses() {
        let text = Self.document(membership: Self.membership).prometheusText(nodeID: "n1")
        #expect(
            text.contains(
                """
                # HELP rexnode_members Peers by SWIM membership status.
                # TYPE rexnode_members gauge
                rexnode_members{status="alive"} 2
                rexnode_members{status="suspect"} 1
                rexnode_members{status="dead"} 1
                rexnode_members{status="left"} 1
                rexnode_members{status="unknown"} 0

                """), "\(text)")
        #expect(!text.contains(#"status="gone""#), "one family, never both views (sum() would count a dead peer twice)")
        #expect(text.components(separatedBy: "# TYPE rexnode_members gauge").count == 2)
    }

    @Test func messagesSentReceivedAndDroppedByEveryReason() {
        let text = Self.document(membership: Self.membership).prometheusText(nodeID: "n1")
        #expect(text.contains("rexnode_membership_messages_sent_total 40\n"))
        #expect(text.contains("rexnode_membership_messages_received_total 38\n"))
        #expect(text.contains(#"rexnode_membership_messages_dropped_total{reason="oversized"} 2"#))
        #expect(text.contains(#"rexnode_membership_messages_dropped_total{reason="sender_mismatch"} 1"#))
        // Every reason is a series, zero or not, so a scrape's set of series never changes.
        for reason in MetricsDocument.Membership.droppedReasons {
            #expect(text.contains(#"rexnode_membership_messages_dropped_total{reason="\#(reason)"} "#), "\(reason)")
        }
        #expect(text.contains("rexnode_membership_probes_failed_total 1\n"))
        #expect(Self.membership.droppedTotal == 6)
    }

    @Test func aNodeWithoutTheMembershipKeepsItsHeartbeatFamilyAndJSON() throws {
        let plain = Self.document(membership: nil)
        let text = plain.prometheusText(nodeID: "n1")
        #expect(text.contains(#"rexnode_members{status="gone"} 2"#))
        #expect(!text.contains("rexnode_membership_"))
        let json = String(decoding: try ControlCodec.encode(plain), as: UTF8.self)
        #expect(!json.contains("membership"), "absent, not null: \(json)")
        // With it: a new member of the document, read back equal; `members` stays as it was.
        let extended = Self.document(membership: Self.membership)
        let decoded = try ControlCodec.decode(MetricsDocument.self, from: try ControlCodec.encode(extended))
        #expect(decoded == extended)
        #expect(decoded.members == plain.members)
    }
}
