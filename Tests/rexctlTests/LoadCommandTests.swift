import RexCluster
import RexControl
import RexFeeds
import Testing

@testable import rexctl

/// `rexctl load churn`: usage errors (exit 64, nothing sent), a node that is down (exit 2),
/// and the pieces that need no cluster: figures, the leak check and the SVG chart.
@Suite struct LoadCommandTests {
    @Test(arguments: [
        (["load"], "Error: Missing expected argument '<scenario>'"),
        (["load", "storm"], "Error: Unknown load scenario 'storm' (scenarios: churn)"),
        (
            ["load", "churn", "--rate", "fast"],
            "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not 'fast'"
        ),
        (["load", "churn", "--rate", "0"], "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '0'"),
        (["load", "churn", "--follows", "0"], "Error: --follows expects a whole number from 1 to 10000, not '0'"),
        (["load", "churn", "--feeds", "x"], "Error: --feeds expects a whole number from 1 to 1000, not 'x'"),
        (["load", "churn", "--in-flight", "-3"], "Error: --in-flight expects a whole number from 1 to 1000, not '-3'"),
        (
            ["load", "churn", "--duration", "soon"],
            "Error: --duration expects a duration from 1ms to 1h, such as 500ms, 2s or 1m, not 'soon'"
        ),
        (
            ["load", "churn", "--sweep", "100,,200"],
            "Error: --sweep expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not ''"
        ),
        (["load", "churn", "--svg", "x.svg"], "Error: --svg needs --sweep (the chart plots the sweep's rates)"),
        (["load", "churn", "--from-peers=yes"], "Error: Option '--from-peers' does not take a value"),
        (["load", "churn", "extra"], "Error: Unexpected argument 'extra'"),
    ])
    func usageErrorsExit64(arguments: [String], message: String) async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let result = await cli(arguments + ["--node", "n1=\(listener.endpoint)", "--node", "n2=\(listener.endpoint)"])
        #expect(result.code == 64, "\(result)")
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix(message + "\n"), "\(result.stderr)")
        #expect(result.stderr.contains("See 'rexctl load --help' for more information."))
        #expect(try listener.received(within: .milliseconds(200)) == [])
    }

    @Test func oneNodeIsAUsageError() async throws {
        let endpoint = try unusedLoopbackEndpoint()
        let result = await cli(["load", "churn", "--node", "n1=\(endpoint)"])
        #expect(result.code == 64, "\(result)")
        #expect(result.stderr.hasPrefix("Error: load churn needs at least 2 nodes"))
    }

    /// Nodes that are down end the run at the timeout given, before the 5 s default (and the
    /// 30 s run) would.
    @Test func nodesDownExit2WithinTheTimeout() async throws {
        let first = try unusedLoopbackEndpoint()
        let second = try unusedLoopbackEndpoint()
        let result = await cli([
            "load", "churn", "--duration", "30s", "--node", "n1=\(first)", "--node", "n2=\(second)",
            "--timeout", "300ms",
        ])
        #expect(result.code == 2, "\(result)")
        expectEndedAtDeadline(result, .milliseconds(300), before: LoadCommand.defaultTimeout)
        #expect(result.stderr.hasSuffix("did not answer within 300ms — is it running? Try 'rexctl nodes'.\n"), "\(result.stderr)")
    }

    @Test func rateAcceptsPerSecondSuffix() throws {
        #expect(try NumericOption.rate("2000/s", option: "--rate") == 2000)
        #expect(try NumericOption.rate("2.5", option: "--rate") == 2.5)
        #expect(throws: UsageError.self) { try NumericOption.rate("-1", option: "--rate") }
    }

    @Test func leakCheckNamesNodeSampleAndNumbers() throws {
        let keep = keepDocument([("pub", .live), ("follow[churn-1]", .live), ("follow[churn-2]", .settling)], opens: 5, cancels: 2)
        let metrics = metricsDocument(opens: 5, cancels: 2, live: 3, liveByKind: ["publisher": 1, "follow": 1], depth: 4)
        let counts = ChurnDriver.counts(keep)
        #expect(counts.live == 2 && counts.settling == 1 && counts.churnFollows == 2)
        let settings = ChurnSettings(
            follows: 1, rate: 1, duration: .seconds(1), feeds: 2, inFlight: 1, fromPeers: false,
            requestTimeout: .seconds(1))
        let nodes = [NodeAddress(id: "n1", control: "tcp://127.0.0.1:1")]
        let driver = try ChurnDriver(nodes: nodes, clients: [], settings: settings, progress: BufferOutput()) { _ in }
        let (sample, violations) = driver.check(node: 0, sample: "sample 7 (t=3.500s)", metrics: metrics, keep: keep)
        #expect(sample.depth == 4)
        #expect(
            violations.map(\.description) == [
                "invariant broken on node n1 at sample 7 (t=3.500s): keep counters opens 5 − cancels 2 = 3, but the keep set has 2 live channels",
                "invariant broken on node n1 at sample 7 (t=3.500s): metrics channels.liveByKind sums to 2, but channels.live is 3",
            ])
        // Both hold: the keep set lists as many live channels as its counters say, and the kinds
        // add up to the metrics' live count.
        let agreeing = keepDocument([("pub", .live), ("follow[churn-1]", .live), ("follow[churn-2]", .settling)], opens: 4, cancels: 2)
        let balanced = metricsDocument(opens: 4, cancels: 2, live: 2, liveByKind: ["publisher": 1, "follow": 1])
        #expect(driver.check(node: 0, sample: "s", metrics: balanced, keep: agreeing).1.isEmpty)
        #expect(ChurnDriver.exactSum([9_007_199_254_740_991, 1]) == nil, "a sum past JSON's exact integers is not compared")
        #expect(ChurnDriver.differences(before: metrics, after: metrics) == [])
        let grown = metricsDocument(live: 4, fds: 30)
        #expect(ChurnDriver.differences(before: metricsDocument(live: 3, fds: 30), after: grown) == ["channels.live started at 3 but is 4"])
        #expect(
            ChurnDriver.differences(before: nil, after: grown)
                == ["process.fds started at - but is 30", "sockets.open started at - but is 0", "channels.live started at - but is 4"])
    }

    @Test func chartHasAxesTicksLabelsAndLegend() {
        let svg = LatencyChart.svg(
            [
                .init(rate: 480, p50Ms: 0.13, p99Ms: 0.6, meanMs: 0.15),
                .init(rate: 1950, p50Ms: 0.2, p99Ms: 1.4, meanMs: 0.3),
            ], title: "Reconcile <latency>", note: "note")
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("Reconcile &lt;latency&gt;"))
        #expect(svg.contains(">achieved topic changes per second (all nodes)</text>"))
        #expect(svg.contains(">reconcile cycle duration (ms)</text>"))
        #expect(svg.contains(">2000</text>") && svg.contains(">1.5</text>"))
        #expect(svg.contains(">p50</text>") && svg.contains(">p99</text>"))
        #expect(svg.components(separatedBy: "<polyline").count == 4)
        #expect(LatencyChart.niceStep(1950) == 500)
        #expect(LatencyChart.label(0.25) == "0.25")
    }
}

/// Per-run percentiles come from the difference of two histogram snapshots.
@Suite struct CycleHistogramTests {
    @Test func percentilesOfTheIntervalBetweenTwoSnapshots() throws {
        let before = metricsDocument(histogram: [(1000, 5), (2_000_000, 1)])
        let after = metricsDocument(histogram: [(1000, 5), (4000, 90), (8000, 10), (2_000_000, 1)])
        let window = CycleHistogram(after).subtracting(CycleHistogram(before))
        #expect(window.percentileMs(0.5) == 0.004)
        #expect(window.percentileMs(0.99) == 0.008)
        #expect(window.maxMs == 0.008, "the 2 ms cycle happened before the run")
        #expect(CycleHistogram(metricsDocument()).isEmpty)
        #expect(CycleHistogram(nil as MetricsDocument?).isEmpty)
    }
}
