import RexCluster
import RexControl
import RexFeeds
import Testing

/// The Prometheus rendering of a metrics document: names, units, the histogram, escaping.
@Suite struct PrometheusTextTests {
    func document(histogram: [MetricsDocument.HistogramBucket], members: MetricsDocument.Members? = nil) -> MetricsDocument {
        MetricsDocument(
            uptimeMs: 1500,
            reconcile: .init(
                cycles: 3, changedCycles: 1, lastMs: 0.1, maxMs: 2, buildMs: 1.5, diffMs: 1, p50Ms: 0.1,
                p99Ms: 2, histogram: histogram),
            channels: .init(opens: 4, cancels: 1, recreates: 0, live: 3),
            messages: .init(
                published: 7, received: 6, malformed: 0, oversized: 0, gaps: 2, duplicates: 1,
                reordered: 0, restarts: 0, evicted: 0),
            snapshots: .init(served: 0, refused: 0), limits: .init(refusedActions: 0, subscriptionsUntracked: 0),
            mailbox: .init(depth: 0, maxDepth: 5), sockets: .init(open: 2, created: 0),
            process: .init(rssBytes: 1 << 20, fds: 9, cpuSeconds: 0.25), members: members)
    }

    @Test func theHistogramIsCumulativeInSecondsAndEndsWithInf() {
        // 1 cycle under 1.024 µs, 1 just under 40.96 µs (in the 32.768 µs…65.536 µs power), 1 of 262.144 µs.
        let text = document(histogram: [
            .init(upperEdgeNanoseconds: 1024, count: 1),
            .init(upperEdgeNanoseconds: 40960, count: 1),
            .init(upperEdgeNanoseconds: 262_144, count: 1),
        ]).prometheusText(nodeID: "n1")
        let name = "rexnode_reconcile_cycle_duration_seconds"
        #expect(text.contains("# TYPE \(name) histogram\n"))
        #expect(text.contains("\(name)_bucket{le=\"1.024e-06\"} 1\n"))
        #expect(text.contains("\(name)_bucket{le=\"3.2768e-05\"} 1\n"))
        #expect(text.contains("\(name)_bucket{le=\"6.5536e-05\"} 2\n"))
        #expect(text.contains("\(name)_bucket{le=\"0.000262144\"} 3\n"))
        #expect(text.contains("\(name)_bucket{le=\"+Inf\"} 3\n\(name)_sum 0.0025\n\(name)_count 3\n"))
        #expect(text.contains("rexnode_uptime_seconds 1.5\n"))
        #expect(text.contains("process_cpu_seconds_total 0.25\n"))
        #expect(text.contains("process_resident_memory_bytes 1048576\n"))
        #expect(text.contains("# TYPE rexnode_follow_gaps gauge\nrexnode_follow_gaps 2\n"))
        #expect(!text.contains("rexnode_members"), "absent from an older node's document")
    }

    @Test func channelLifecyclesByKindReplaceTheTotals() {
        var metrics = document(histogram: [])
        let older = metrics.prometheusText(nodeID: "n1")
        #expect(
            older.contains("# TYPE rexnode_channel_opens_total counter\nrexnode_channel_opens_total \(metrics.channels.opens)\n"),
            "an older node's document: the totals alone")
        metrics.channels.opensByKind = ["follow": 5, "feed": 2]
        metrics.channels.cancelsByKind = ["follow": 3, "feed": 0]
        metrics.channels.recreatesByKind = ["follow": 1, "feed": 0]
        let text = metrics.prometheusText(nodeID: "n1")
        for (name, feed, follow) in [
            ("rexnode_channel_opens_total", 2, 5), ("rexnode_channel_cancels_total", 0, 3), ("rexnode_channel_recreates_total", 0, 1),
        ] {
            #expect(
                text.contains(
                    """
                    # TYPE \(name) counter
                    \(name){kind="feed"} \(feed)
                    \(name){kind="follow"} \(follow)

                    """), "\(name)")
            #expect(!text.contains("\n\(name) "), "\(name): one family never mixes the total with its parts")
        }
    }

    @Test func liveChannelsByKindAndControlRequestsByOpAndResult() {
        var metrics = document(histogram: [])
        #expect(
            metrics.prometheusText(nodeID: "n1").contains("# TYPE rexnode_channels_live gauge\nrexnode_channels_live 3\n"),
            "an older node's document: the total alone")
        #expect(!metrics.prometheusText(nodeID: "n1").contains("rexnode_control_requests_total"))
        metrics.channels.liveByKind = ["peer": 1, "feed": 2, "follow": 0]
        metrics.controlRequests = ["ping": ["ok": 4], "invalid": ["unknownOp": 1, "badRequest": 2], #"x"y"#: ["a\nb": 1]]
        let text = metrics.prometheusText(nodeID: "n1")
        #expect(
            text.contains(
                """
                # TYPE rexnode_channels_live gauge
                rexnode_channels_live{kind="feed"} 2
                rexnode_channels_live{kind="follow"} 0
                rexnode_channels_live{kind="peer"} 1

                """))
        #expect(!text.contains("rexnode_channels_live 3"), "one family never mixes the total with its parts")
        #expect(
            text.contains(
                """
                # TYPE rexnode_control_requests_total counter
                rexnode_control_requests_total{op="invalid",result="badRequest"} 2
                rexnode_control_requests_total{op="invalid",result="unknownOp"} 1
                rexnode_control_requests_total{op="ping",result="ok"} 4
                rexnode_control_requests_total{op="x\\"y",result="a\\nb"} 1

                """))
    }

    @Test func membersAreOneFamilyWithAStatusLabelAndLabelsAreEscaped() {
        let text = document(histogram: [], members: .init(alive: 2, gone: 1)).prometheusText(nodeID: #"a"b\c"#)
        #expect(text.contains(#"rexnode_info{node="a\"b\\c"} 1"#))
        #expect(
            text.contains(
                """
                # TYPE rexnode_members gauge
                rexnode_members{status="unknown"} 0
                rexnode_members{status="alive"} 2
                rexnode_members{status="suspect"} 0
                rexnode_members{status="gone"} 1

                """))
        #expect(text.contains("\n# TYPE rexnode_reconcile_cycle_duration_seconds histogram\n"))
        #expect(text.contains("rexnode_reconcile_cycle_duration_seconds_count 0\n"))
    }
}
