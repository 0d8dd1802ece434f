import RexCluster
import RexControl
import RexFeeds
import Testing

@testable import rexctl

/// Numbers from a node are hostile input too: no value, however large, small, negative or
/// infinite, may trap a conversion while rendering.
@Suite struct HostileNumberTests {
    /// The extremes a typed document can hold: every integer of `Int`, every finite `Double`.
    @Test func tablesRenderAbsurdMilliseconds() throws {
        let keep = try document(
            KeepDocument.self,
            #"""
            {"channels": [{"id": "pub", "lifetime": "permanent", "resetKey": null, "settleMs": -1e300, "broadcasting": "nothing",
                           "delivery": "immediate", "status": "live", "supervised": true, "sinceMs": -9223372036854775808,
                           "ageMs": 9223372036854775807, "opens": 9223372036854775807, "recreates": 0, "deliveries": 0, "drops": 0,
                           "history": [{"atMs": 9223372036854775807, "event": "opened"}, {"atMs": -5, "event": "opened"}]}],
             "counters": {"cycles": 0, "changedCycles": 0, "opens": 0, "cancels": 0, "recreates": 0, "deliveries": 0, "drops": 0,
                          "live": 0, "lastMs": 1e308, "maxMs": -1e308}}
            """#)
        let table = KeepCommand.table([(nil, keep)], showNode: false).render()
        #expect(table.contains("pub  permanent  -1e+300ms  immediate  live   2562047788015h12m  9223372036854775807"), "\(table)")

        let described = DescribeCommand.render(keep.channels[0], node: "n1")
        #expect(described.contains("Settle:        -1e+300ms\n"), "\(described)")
        #expect(described.contains("Since:         -9223372036854775.808s\n"), "\(described)")
        #expect(described.contains("Age:           2562047788015h12m\n"), "\(described)")
        #expect(described.contains("  9223372036854775.807s  opened\n") && described.contains("  -0.005s  opened\n"), "\(described)")

        var state = NodeState(id: "n1")
        state.nowMs = Int.max
        state.peers["n2"] = Peer(endpoint: "e")
        state.peers["n2"]?.status = .alive
        state.peers["n2"]?.lastSeenMs = Int.min
        let rendered = StateCommand.render(state)
        #expect(rendered.hasPrefix("NODE      n1  (up 2562047788015h12m)\n"), "\(rendered)")
        #expect(
            rendered.contains("n2  e         alive             -  -9223372036854775808ms"),
            "a difference that overflows is shown as is: \(rendered)")

        let n1 = NodeAddress(id: "n1", control: "tcp://127.0.0.1:7201")
        let ping = PingDocument(node: "n1", uptimeMs: Int.min, pub: "p", control: "c", pid: 1)
        #expect(NodesCommand.table([NodesCommand.Report(node: n1, ping: .success(ping))]).render().contains("-9223372036854775808ms"))
    }

    /// A number no document type holds (beyond `Int`, or `1e999`) makes the reply unreadable:
    /// exit 2 with what is wrong, never a trap.
    @Test(arguments: [#""opens": 1e999"#, #""opens": 9223372036854775808"#, #""opens": 1.5"#, #""opens": "1""#])
    func numbersNoDocumentHoldsAreUnreadable(member: String) async throws {
        let keep =
            #"{"channels": [], "counters": {"cycles": 0, "changedCycles": 0, \#(member), "cancels": 0, "recreates": 0, "deliveries": 0, "drops": 0, "live": 0, "lastMs": 0, "maxMs": 0}}"#
        let node = try CannedNode { _, id in CannedNode.success(id: id, result: keep) }
        defer { node.stop() }
        let result = await cli(["keep", "n1", "--node", "n1=\(node.endpoint)", "--timeout", "1s"])
        #expect(result.code == 2, "\(result)")
        #expect(result.stderr.contains("sent a reply rexctl cannot read (its result is not a KeepDocument"), "\(result.stderr)")
    }

    @Test func formattingNeverTraps() {
        #expect(Formatting.rate(99.84) == "99.8/s")
        #expect(Formatting.rate(-2.5) == "-2.5/s")
        #expect(Formatting.rate(1e18) == "1e+18/s")
        #expect(Formatting.rate(.infinity) == "inf/s")
        #expect(Formatting.threeDecimals(10.0214) == "10.021")
        #expect(Formatting.threeDecimals(1e300) == "1e+300")
        #expect(Formatting.preciseSeconds(Int.min) == "-9223372036854775.808s")
        #expect(Formatting.milliseconds(Double.infinity) == "infms")
        #expect(ChurnReport.oneDecimal(.infinity) == "inf")
        #expect(ChurnReport.oneDecimal(1e300) == "1e+300")
        #expect(LatencyChart.label(1e300) == "1e+300")
        #expect(DurationParser.format(.seconds(Int64.max)) == "2562047788015h12m")
    }

    @Test func chartOfAbsurdLatenciesIsFinite() {
        let svg = LatencyChart.svg(
            [
                .init(rate: 100, p50Ms: .infinity, p99Ms: 1e308, meanMs: -.infinity),
                .init(rate: .nan, p50Ms: 1, p99Ms: 2, meanMs: 1),
            ], title: "t", note: "n")
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(!svg.contains("inf") && !svg.contains("nan"))
    }

    /// Counts beyond what JSON carries exactly (±(2^53 − 1)) read as absent, so sums and
    /// differences of node counters cannot overflow.
    @Test func hugeCountersNeitherOverflowNorCount() throws {
        #expect(Formatting.exact(9_007_199_254_740_991) == 9_007_199_254_740_991)
        #expect(Formatting.exact(-9_007_199_254_740_991) == -9_007_199_254_740_991)
        #expect(Formatting.exact(Int.max) == nil)
        #expect(Formatting.exact(Int.min) == nil)

        func metrics(
            histogram: [(Int, Int)] = [], opens: Int = 0, cancels: Int = 0, live: Int = 0, cycles: Int = 0,
            p50Ms: Double = 0
        ) -> MetricsDocument {
            MetricsDocument(
                uptimeMs: 0,
                reconcile: .init(
                    cycles: cycles, changedCycles: 0, lastMs: 0, maxMs: 0, buildMs: 0, diffMs: 0, p50Ms: p50Ms, p99Ms: 0,
                    histogram: histogram.map { .init(upperEdgeNanoseconds: $0.0, count: $0.1) }),
                channels: .init(opens: opens, cancels: cancels, recreates: 0, live: live),
                messages: .init(
                    published: 0, received: 0, malformed: 0, oversized: 0, gaps: 0, duplicates: 0,
                    reordered: 0, restarts: 0, evicted: 0),
                snapshots: .init(served: 0, refused: 0), limits: .init(refusedActions: 0, subscriptionsUntracked: 0),
                mailbox: .init(depth: 0, maxDepth: 0), sockets: .init(open: 0, created: 0), process: .init(rssBytes: 0, fds: 0))
        }
        #expect(CycleHistogram(metrics(histogram: [(1000, Int.max), (1000, 1)])).counts == [1000: 1])
        let saturated = CycleHistogram(metrics(histogram: Array(repeating: (2000, 9_007_199_254_740_991), count: 1100)))
        #expect(saturated.counts == [2000: Int.max])
        #expect(saturated.subtracting(CycleHistogram(metrics(histogram: [(2000, -9_007_199_254_740_991)]))).counts == [2000: Int.max])
        #expect(saturated.percentileMs(0.99) == 0.002)

        let keep = KeepDocument(
            channels: [],
            counters: .init(
                cycles: 0, changedCycles: 0, opens: Int.min, cancels: 1, recreates: 0,
                deliveries: 0, drops: 0, live: 0, lastMs: 0, maxMs: 0))
        let settings = ChurnSettings(
            follows: 1, rate: 1, duration: .seconds(1), feeds: 2, inFlight: 1, fromPeers: false,
            requestTimeout: .seconds(1))
        let driver = try ChurnDriver(
            nodes: [NodeAddress(id: "n1", control: "tcp://127.0.0.1:1")], clients: [],
            settings: settings, progress: BufferOutput()
        ) { _ in }
        let (_, violations) = driver.check(node: 0, sample: "s", metrics: metrics(opens: Int.max, cancels: -1), keep: keep)
        #expect(violations.map(\.message) == ["keep counters opens 0 − cancels 1 = -1, but the keep set has 0 live channels"])

        let before = metrics(cycles: -Int.max)
        let end = metrics(cycles: Int.max, p50Ms: .infinity)
        let run = ChurnRunResult(
            settings: settings, nodeIDs: ["n1"], elapsed: 1, changes: [1], scheduled: 1,
            before: [before], after: [before], end: [end], samples: [], maxSampledDepth: [0],
            violations: [])
        #expect(ChurnReport.figures(run).total.cycles == 0)
        #expect(ChurnReport.tables(run, style: Style(isEnabled: false)).contains("inf"))
    }
}

/// Every numeric option is checked for range while parsing: exit 64 and the usage line,
/// before any socket exists.
@Suite struct NumericOptionRangeTests {
    @Test(
        arguments: [
            (
                "send n1 set a 1 --count 2 --rate 1e18",
                "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '1e18'"
            ),
            (
                "send n1 set a 1 --count 2 --rate 1e-300",
                "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '1e-300'"
            ),
            (
                "send n1 set a 1 --count 2 --rate inf",
                "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not 'inf'"
            ),
            (
                "send n1 set a 1 --count 2 --rate nan",
                "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not 'nan'"
            ),
            (
                "send n1 set a 1 --count 2 --rate 0x10",
                "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '0x10'"
            ),
            (
                "send n1 set a 1 --count 2 --rate 1000001",
                "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '1000001'"
            ),
            (
                "send n1 set a 1 --count 2 --rate 0.0001/s",
                "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '0.0001/s'"
            ),
            (
                "send n1 set a 1 --count 99999999999999999999",
                "Error: --count expects a whole number from 1 to 10000000, not '99999999999999999999'"
            ),
            ("send n1 set a 1 --count 10000001", "Error: --count expects a whole number from 1 to 10000000, not '10000001'"),
            ("send n1 set a 1 --count +5", "Error: --count expects a whole number from 1 to 10000000, not '+5'"),
            ("state n1 --timeout 100000h", "Error: --timeout expects a duration from 1ms to 24h, such as 500ms, 2s or 1m, not '100000h'"),
            ("state n1 --timeout 0.0001ms", "Error: --timeout expects a duration from 1ms to 24h, such as 500ms, 2s or 1m, not '0.0001ms'"),
            (
                "state n1 --node n1=tcp://127.0.0.1:99999",
                "Error: --node expects ID=ENDPOINT with a tcp port from 1 to 65535, e.g. n1=tcp://127.0.0.1:7201, not 'n1=tcp://127.0.0.1:99999'"
            ),
            (
                "state n1 --node n1=tcp://127.0.0.1:0",
                "Error: --node expects ID=ENDPOINT with a tcp port from 1 to 65535, e.g. n1=tcp://127.0.0.1:7201, not 'n1=tcp://127.0.0.1:0'"
            ),
            (
                "state n1 --node n1=tcp://127.0.0.1",
                "Error: --node expects ID=ENDPOINT with a tcp port from 1 to 65535, e.g. n1=tcp://127.0.0.1:7201, not 'n1=tcp://127.0.0.1'"
            ),
            ("load churn --rate 1e18", "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '1e18'"),
            (
                "load churn --sweep 100,1e-300",
                "Error: --sweep expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '1e-300'"
            ),
            ("load churn --duration 2h", "Error: --duration expects a duration from 1ms to 1h, such as 500ms, 2s or 1m, not '2h'"),
            (
                "load churn --sweep-duration 0.0001ms",
                "Error: --sweep-duration expects a duration from 1ms to 1h, such as 500ms, 2s or 1m, not '0.0001ms'"
            ),
            (
                "load churn --follows 99999999999999999999",
                "Error: --follows expects a whole number from 1 to 10000, not '99999999999999999999'"
            ),
        ] as [(String, String)])
    func outOfRangeIsAUsageError(line: String, message: String) async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let nodes = line.contains("--node") ? [] : ["--node", "n1=\(listener.endpoint)", "--node", "n2=\(listener.endpoint)"]
        let result = await cli(line.split(separator: " ").map(String.init) + nodes)
        #expect(result.code == 64, "\(result)")
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix(message + "\nUsage: "), "\(result.stderr)")
        #expect(try listener.received(within: .milliseconds(100)) == [])
    }

    @Test func boundsThemselvesAreAccepted() throws {
        func send(_ extra: String) throws -> SendCommand {
            try SendCommand(RexCtl.scanner.scan(["send", "n1", "set", "a", "1"] + extra.split(separator: " ").map(String.init)).arguments)
        }
        #expect(try send("--count 10000000 --rate 1000000/s").rate == 1_000_000)
        #expect(try send("--count 1 --rate 0.001").rate == 0.001)
        let globals = try GlobalOptions(RexCtl.scanner.scan(["state", "n1", "--timeout", "24h", "--node", "n1=tcp://[::1]:65535"]).globals)
        #expect(globals.timeout == .seconds(86_400))
        #expect(try GlobalOptions(RexCtl.scanner.scan(["state", "n1", "--timeout", "1ms"]).globals).timeout == .milliseconds(1))
    }
}
