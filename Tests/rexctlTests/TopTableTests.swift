import RexCluster
import RexControl
import RexFeeds
import Testing

@testable import rexctl

/// `rexctl top`'s rendering: rates from two samples on the node's clock, and what it shows when
/// a node is down, restarted or sends hostile numbers.
@Suite struct TopTableTests {
    static func metrics(
        uptimeMs: Int, cycles: Int, received: Int, published: Int, live: Int = 5, depth: Int = 0,
        rssBytes: Int = 28_416_000, members: MetricsDocument.Members? = .init(alive: 2)
    ) -> MetricsDocument {
        var document = metricsDocument(live: live, depth: depth)
        document.uptimeMs = uptimeMs
        document.reconcile.cycles = cycles
        document.messages.received = received
        document.messages.published = published
        document.process.rssBytes = rssBytes
        document.members = members
        return document
    }

    static let down = NodeRequestError(node: NodeAddress(id: "n3", control: "tcp://127.0.0.1:1"), kind: .unreachable(timeout: .seconds(1)))

    @Test func ratesAreCounterDifferencesOverTheNodesUptime() {
        let earlier = Self.metrics(uptimeMs: 10_000, cycles: 100, received: 1_000, published: 50)
        let later = Self.metrics(uptimeMs: 12_000, cycles: 120, received: 1_600, published: 51)
        #expect(TopTable.rates(from: earlier, to: later) == .init(cycles: 10, received: 300, published: 0.5))
    }

    @Test func firstSampleHasNoRatesAndLaterOnesDo() {
        let first = [
            TopTable.Row(id: "n1", metrics: .success(Self.metrics(uptimeMs: 1_000, cycles: 10, received: 20, published: 10))),
            TopTable.Row(
                id: "n2",
                metrics: .success(
                    Self.metrics(
                        uptimeMs: 1_100, cycles: 12, received: 22, published: 11,
                        members: .init(alive: 1, gone: 1)))),
            TopTable.Row(id: "n3", metrics: .failure(Self.down)),
        ]
        #expect(
            TopTable.table(previous: [:], current: first).render() == """
                NODE  STATUS  CYCLES/S  IN/S  OUT/S  CHANNELS  MAILBOX      RSS  MEMBERS         UPTIME
                n1    up             -     -      -         5        0  27.1MiB  alive:2             1s
                n2    up             -     -      -         5        0  27.1MiB  alive:1,gone:1    1.1s
                n3    down           -     -      -         -        -        -  -                    -

                """)
        let previous = ["n1": Self.metrics(uptimeMs: 1_000, cycles: 10, received: 20, published: 10)]
        let second = [
            TopTable.Row(
                id: "n1",
                metrics: .success(
                    Self.metrics(
                        uptimeMs: 2_000, cycles: 40, received: 3_020, published: 310,
                        live: 6, depth: 3)))
        ]
        #expect(
            TopTable.table(previous: previous, current: second).render() == """
                NODE  STATUS  CYCLES/S    IN/S  OUT/S  CHANNELS  MAILBOX      RSS  MEMBERS  UPTIME
                n1    up          30.0  3000.0  300.0         6        3  27.1MiB  alive:2      2s

                """)
    }

    /// A restart (uptime went down) or counters going backwards: no rate rather than a negative
    /// or huge one; extreme counters neither trap nor show as rates.
    @Test func restartsAndHostileCountersShowNoRate() {
        let before = Self.metrics(uptimeMs: 60_000, cycles: 600, received: 6_000, published: 600)
        let restarted = Self.metrics(uptimeMs: 1_000, cycles: 10, received: 20, published: 10)
        #expect(TopTable.rates(from: before, to: restarted) == .init())
        let backwards = Self.metrics(uptimeMs: 61_000, cycles: 500, received: 6_100, published: 600)
        #expect(TopTable.rates(from: before, to: backwards) == .init(cycles: nil, received: 100, published: 0))
        let hostile = Self.metrics(
            uptimeMs: Int.max, cycles: Int.max, received: Int.min, published: Int.max, rssBytes: -1,
            members: nil)
        #expect(TopTable.rates(from: before, to: hostile).received == nil)
        let fromMin = Self.metrics(uptimeMs: Int.min, cycles: Int.min, received: 0, published: 0)
        #expect(TopTable.rates(from: fromMin, to: hostile) == .init())
        let row = TopTable.table(previous: ["n1": before], current: [TopTable.Row(id: "n1", metrics: .success(hostile))]).rows[0]
        #expect(row[7] == "-" && row[8] == "-")
    }

    @Test func aNodeIdFromTheClusterFileIsEscapedForTheTerminal() {
        let rows = [TopTable.Row(id: "evil\u{1B}[2J", metrics: .failure(Self.down))]
        #expect(!TopTable.table(previous: [:], current: rows).render().contains("\u{1B}"))
    }

    @Test func jsonDocumentsCarryRatesAndReachability() {
        let previous = ["n1": Self.metrics(uptimeMs: 1_000, cycles: 10, received: 20, published: 10)]
        let rows = [
            TopTable.Row(id: "n1", metrics: .success(Self.metrics(uptimeMs: 2_000, cycles: 20, received: 40, published: 10))),
            TopTable.Row(id: "n3", metrics: .failure(Self.down)),
        ]
        let lines = TopTable.documents(sample: 2, previous: previous, current: rows).map(\.text)
        #expect(
            lines[0]
                == #"{"sample":2,"id":"n1","reachable":true,"cyclesPerSecond":10,"receivedPerSecond":20,"publishedPerSecond":0,"liveChannels":5,"mailboxDepth":0,"rssBytes":28416000,"members":{"alive":2,"gone":0,"suspect":0,"unknown":0},"uptimeMs":2000}"#
        )
        #expect(lines[1].hasPrefix(#"{"sample":2,"id":"n3","reachable":false,"error":"#))
    }

    @Test func optionsAreBounded() async {
        for (arguments, message) in [
            ("top --interval 1ms", "--interval expects a duration from 100ms to 1h"),
            ("top --count 0", "--count expects a whole number from 1 to 1000000"),
        ] {
            let result = await cli(arguments)
            #expect(result.code == 64)
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
