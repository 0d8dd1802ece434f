import Foundation
import RexCluster
import RexControl
import RexFeeds
import Testing

/// A durable node's journal in the metrics document: each counter's JSON member and its
/// `rexnode_journal_*` family in the Prometheus text, and neither for a node without one.
@Suite struct JournalMetricsTests {
    private func document(journal: MetricsDocument.Journal?) -> MetricsDocument {
        MetricsDocument(
            uptimeMs: 1000,
            reconcile: .init(cycles: 0, changedCycles: 0, lastMs: 0, maxMs: 0, buildMs: 0, diffMs: 0, p50Ms: 0, p99Ms: 0, histogram: []),
            channels: .init(opens: 0, cancels: 0, recreates: 0, live: 0),
            messages: .init(
                published: 0, received: 0, malformed: 0, oversized: 0, gaps: 0, duplicates: 0,
                reordered: 0, restarts: 0, evicted: 0),
            snapshots: .init(served: 0, refused: 0), limits: .init(refusedActions: 0, subscriptionsUntracked: 0),
            mailbox: .init(depth: 0, maxDepth: 0), sockets: .init(open: 0, created: 0), process: .init(rssBytes: 0, fds: 0),
            journal: journal)
    }

    /// Two commits of 1–2 ms (the 2^20…2^21 ns power), one of about 5 ms, 12.5 ms in all.
    private let journal = MetricsDocument.Journal(
        durability: .batch, commits: 3, actionsCommitted: 250, commitMs: 12.5,
        commitHistogram: [.init(upperEdgeNanoseconds: 1_310_720, count: 2), .init(upperEdgeNanoseconds: 5_242_880, count: 1)],
        pendingActions: 17, compactions: 4, truncatedLogTails: 1, truncatedJournalTails: 0, failed: false)

    @Test func everyCounterHasItsFamily() {
        let text = document(journal: journal).prometheusText(nodeID: "n1")
        #expect(text.contains("# TYPE rexnode_journal_info gauge\nrexnode_journal_info{durability=\"batch\"} 1\n"))
        #expect(text.contains("# TYPE rexnode_journal_commits_total counter\nrexnode_journal_commits_total 3\n"))
        #expect(text.contains("# TYPE rexnode_journal_actions_committed_total counter\nrexnode_journal_actions_committed_total 250\n"))
        #expect(text.contains("# TYPE rexnode_journal_pending_actions gauge\nrexnode_journal_pending_actions 17\n"))
        #expect(text.contains("# TYPE rexnode_journal_compactions_total counter\nrexnode_journal_compactions_total 4\n"))
        #expect(
            text.contains(
                """
                # TYPE rexnode_journal_truncated_tails_total counter
                rexnode_journal_truncated_tails_total{part="log"} 1
                rexnode_journal_truncated_tails_total{part="rows"} 0

                """))
        #expect(text.contains("# TYPE rexnode_journal_failed gauge\nrexnode_journal_failed 0\n"))
    }

    @Test func commitDurationsAreACumulativeHistogramInSeconds() {
        let text = document(journal: journal).prometheusText(nodeID: "n1")
        let name = "rexnode_journal_commit_duration_seconds"
        #expect(text.contains("# TYPE \(name) histogram\n"))
        #expect(text.contains("\(name)_bucket{le=\"0.001048576\"} 0\n"))
        #expect(text.contains("\(name)_bucket{le=\"0.002097152\"} 2\n"))
        #expect(text.contains("\(name)_bucket{le=\"0.004194304\"} 2\n"))
        #expect(text.contains("\(name)_bucket{le=\"0.008388608\"} 3\n"))
        #expect(text.contains("\(name)_bucket{le=\"+Inf\"} 3\n\(name)_sum 0.0125\n\(name)_count 3\n"))
    }

    @Test func aFailedJournalSaysSoAndNoneIsALabel() {
        var failed = journal
        failed.failed = true
        failed.durability = .none
        let text = document(journal: failed).prometheusText(nodeID: "n1")
        #expect(text.contains("rexnode_journal_failed 1\n"))
        #expect(text.contains("rexnode_journal_info{durability=\"none\"} 1\n"))
    }

    @Test func aNodeWithoutADataDirectoryHasNoJournal() throws {
        let metrics = document(journal: nil)
        #expect(!metrics.prometheusText(nodeID: "n1").contains("rexnode_journal"))
        let json = String(decoding: try JSONEncoder().encode(metrics), as: UTF8.self)
        #expect(!json.contains("journal"))
    }

    @Test func theJSONMembersRoundTrip() throws {
        let metrics = document(journal: journal)
        let json = try JSONEncoder().encode(metrics)
        let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
        let members = object?["journal"] as? [String: Any]
        #expect(
            members?.keys.sorted() == [
                "actionsCommitted", "commitHistogram", "commitMs", "commits", "compactions", "durability", "failed", "pendingActions",
                "truncatedJournalTails", "truncatedLogTails",
            ])
        #expect(members?["commitHistogram"] as? [[Int]] == [[1_310_720, 2], [5_242_880, 1]])
        #expect(try JSONDecoder().decode(MetricsDocument.self, from: json) == metrics)
    }
}
