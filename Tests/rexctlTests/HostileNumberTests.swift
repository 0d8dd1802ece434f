import Testing

@testable import rexctl

/// Numbers from a node are hostile input too: no value, however large, small, negative or
/// infinite, may trap a conversion while rendering.
@Suite struct HostileNumberTests {
    @Test func tablesRenderAbsurdMilliseconds() throws {
        let keep = try JSONValue.parse(#"""
            {"channels": [{"id": "pub", "lifetime": "permanent", "settleMs": -1e300, "delivery": "immediate",
                           "status": "live", "ageMs": 1e300, "opens": 1e999, "recreates": 0, "deliveries": 0, "drops": 0}]}
            """#)
        let table = KeepCommand.table([(nil, keep)], showNode: false).render()
        #expect(table.contains("pub  permanent  -1e300ms  immediate  live   1e300ms  1e999"), "\(table)")

        let channel = try JSONValue.parse(#"""
            {"id": "pub", "sinceMs": -1150, "ageMs": 1e999, "settleMs": 9223372036854775808,
             "history": [{"atMs": 1e300, "event": "opened"}, {"atMs": -5, "event": "opened"}]}
            """#)
        let described = DescribeCommand.render(channel, node: "n1")
        #expect(described.contains("Settle:   9223372036854775808ms\n"), "\(described)")
        #expect(described.contains("Since:    -1.150s\n"), "\(described)")
        #expect(described.contains("Age:      1e999ms\n"), "\(described)")
        #expect(described.contains("  1e300ms  opened\n") && described.contains("  -0.005s  opened\n"), "\(described)")

        let state = try JSONValue.parse(#"""
            {"id": "n1", "nowMs": 1e300, "peers": {"n2": {"endpoint": "e", "status": "alive", "lastSeenMs": -1e300}}}
            """#)
        let rendered = StateCommand.render(state)
        #expect(rendered.hasPrefix("NODE      n1  (up 1e300ms)\n"), "\(rendered)")
        #expect(rendered.contains("n2  e         alive   2e+300ms ago"), "\(rendered)")

        let n1 = NodeAddress(id: "n1", control: "tcp://127.0.0.1:7201")
        let ping = try JSONValue.parse(#"{"uptimeMs": -1e308}"#)
        #expect(NodesCommand.table([NodesCommand.Report(node: n1, ping: .success(ping))]).render().contains("-1e308ms"))
    }

    @Test func formattingNeverTraps() {
        #expect(Formatting.rate(99.84) == "99.8/s")
        #expect(Formatting.rate(-2.5) == "-2.5/s")
        #expect(Formatting.rate(1e18) == "1e+18/s")
        #expect(Formatting.rate(.infinity) == "inf/s")
        #expect(Formatting.threeDecimals(10.0214) == "10.021")
        #expect(Formatting.threeDecimals(1e300) == "1e+300")
        #expect(Formatting.preciseSeconds(.number("1e16")) == "1e16ms")
        #expect(ChurnReport.oneDecimal(.infinity) == "inf")
        #expect(ChurnReport.oneDecimal(1e300) == "1e+300")
        #expect(LatencyChart.label(1e300) == "1e+300")
        #expect(DurationParser.format(.seconds(Int64.max)) == "2562047788015h12m")
    }

    @Test func chartOfAbsurdLatenciesIsFinite() {
        let svg = LatencyChart.svg([
            .init(rate: 100, p50Ms: .infinity, p99Ms: 1e308, meanMs: -.infinity),
            .init(rate: .nan, p50Ms: 1, p99Ms: 2, meanMs: 1),
        ], title: "t", note: "n")
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(!svg.contains("inf") && !svg.contains("nan"))
    }

    /// Counts beyond what JSON carries exactly (±(2^53 − 1)) read as absent, so sums and
    /// differences of node counters cannot overflow.
    @Test func hugeCountersNeitherOverflowNorCount() throws {
        #expect(try JSONValue.parse("9007199254740991").intValue == 9_007_199_254_740_991)
        #expect(try JSONValue.parse("-9007199254740991").intValue == -9_007_199_254_740_991)
        #expect(try JSONValue.parse("9223372036854775807").intValue == nil)
        #expect(try JSONValue.parse("-9223372036854775808").intValue == nil)

        let histogram = try JSONValue.parse(#"{"reconcile": {"histogram": [[1000, 9223372036854775807], [1000, 1]]}}"#)
        #expect(CycleHistogram(histogram).counts == [1000: 1])
        let buckets = Array(repeating: "[2000, 9007199254740991]", count: 1100).joined(separator: ",")
        let saturated = CycleHistogram(try JSONValue.parse(#"{"reconcile": {"histogram": [\#(buckets)]}}"#))
        #expect(saturated.counts == [2000: Int.max])
        #expect(saturated.subtracting(CycleHistogram(try JSONValue.parse(#"{"reconcile": {"histogram": [[2000, -9007199254740991]]}}"#)))
            .counts == [2000: Int.max])
        #expect(saturated.percentileMs(0.99) == 0.002)

        let keep = try JSONValue.parse(#"{"channels": [], "counters": {"opens": -9223372036854775808, "cancels": 1}}"#)
        let metrics = try JSONValue.parse(#"{"channels": {"opens": 9223372036854775807, "cancels": -1, "live": 0}}"#)
        let settings = ChurnSettings(follows: 1, rate: 1, duration: .seconds(1), feeds: 2, inFlight: 1, fromPeers: false,
                                     requestTimeout: .seconds(1))
        let driver = try ChurnDriver(nodes: [NodeAddress(id: "n1", control: "tcp://127.0.0.1:1")], clients: [],
                                     settings: settings, progress: BufferOutput()) { _ in }
        let (_, violations) = driver.check(node: 0, sample: "s", metrics: metrics, keep: keep)
        #expect(violations.map(\.message) == ["keep counters opens 0 − cancels 1 = -1, but the keep set has 0 live channels"])

        let before = try JSONValue.parse(#"{"reconcile": {"cycles": -9223372036854775807}}"#)
        let end = try JSONValue.parse(#"{"reconcile": {"cycles": 9223372036854775807, "p50Ms": 1e999}}"#)
        let run = ChurnRunResult(settings: settings, nodeIDs: ["n1"], elapsed: 1, changes: [1], scheduled: 1,
                                 before: [before], after: [before], end: [end], samples: [], maxSampledDepth: [0],
                                 violations: [])
        #expect(ChurnReport.figures(run).total.cycles == 0)
        #expect(ChurnReport.tables(run, style: Style(isEnabled: false)).contains("inf"))
    }
}

/// Every numeric option is checked for range while parsing: exit 64 and the usage line,
/// before any socket exists.
@Suite struct NumericOptionRangeTests {
    @Test(arguments: [
        ("send n1 set a 1 --count 2 --rate 1e18",
         "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '1e18'"),
        ("send n1 set a 1 --count 2 --rate 1e-300",
         "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '1e-300'"),
        ("send n1 set a 1 --count 2 --rate inf",
         "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not 'inf'"),
        ("send n1 set a 1 --count 2 --rate nan",
         "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not 'nan'"),
        ("send n1 set a 1 --count 2 --rate 0x10",
         "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '0x10'"),
        ("send n1 set a 1 --count 2 --rate 1000001",
         "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '1000001'"),
        ("send n1 set a 1 --count 2 --rate 0.0001/s",
         "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '0.0001/s'"),
        ("send n1 set a 1 --count 99999999999999999999",
         "Error: --count expects a whole number from 1 to 10000000, not '99999999999999999999'"),
        ("send n1 set a 1 --count 10000001", "Error: --count expects a whole number from 1 to 10000000, not '10000001'"),
        ("send n1 set a 1 --count +5", "Error: --count expects a whole number from 1 to 10000000, not '+5'"),
        ("state n1 --timeout 100000h", "Error: --timeout expects a duration from 1ms to 24h, such as 500ms, 2s or 1m, not '100000h'"),
        ("state n1 --timeout 0.0001ms", "Error: --timeout expects a duration from 1ms to 24h, such as 500ms, 2s or 1m, not '0.0001ms'"),
        ("state n1 --node n1=tcp://127.0.0.1:99999",
         "Error: --node expects ID=ENDPOINT with a tcp port from 1 to 65535, e.g. n1=tcp://127.0.0.1:7201, not 'n1=tcp://127.0.0.1:99999'"),
        ("state n1 --node n1=tcp://127.0.0.1:0",
         "Error: --node expects ID=ENDPOINT with a tcp port from 1 to 65535, e.g. n1=tcp://127.0.0.1:7201, not 'n1=tcp://127.0.0.1:0'"),
        ("state n1 --node n1=tcp://127.0.0.1",
         "Error: --node expects ID=ENDPOINT with a tcp port from 1 to 65535, e.g. n1=tcp://127.0.0.1:7201, not 'n1=tcp://127.0.0.1'"),
        ("load churn --rate 1e18", "Error: --rate expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '1e18'"),
        ("load churn --sweep 100,1e-300",
         "Error: --sweep expects a rate per second from 0.001 to 1000000, such as 100 or 100/s, not '1e-300'"),
        ("load churn --duration 2h", "Error: --duration expects a duration from 1ms to 1h, such as 500ms, 2s or 1m, not '2h'"),
        ("load churn --sweep-duration 0.0001ms",
         "Error: --sweep-duration expects a duration from 1ms to 1h, such as 500ms, 2s or 1m, not '0.0001ms'"),
        ("load churn --follows 99999999999999999999", "Error: --follows expects a whole number from 1 to 10000, not '99999999999999999999'"),
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
