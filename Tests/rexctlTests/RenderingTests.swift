import RexCluster
import RexControl
import RexFeeds
import Testing

@testable import rexctl

/// Tables from fixed documents (the examples of docs/protocol.md).
@Suite struct RenderingTests {
    static let keep = """
        {"channels": [
          {"id": "follow[prices]", "lifetime": "ephemeral", "resetKey": "eu.prices", "settleMs": 50,
           "broadcasting": "nothing", "delivery": "immediate", "status": "live", "supervised": true,
           "sinceMs": 1200, "ageMs": 3900, "opens": 2, "recreates": 1, "deliveries": 0, "drops": 0,
           "history": [{"atMs": 100, "event": "settling"}, {"atMs": 150, "event": "opened"},
                       {"atMs": 1150, "event": "recreated", "from": "eu.old", "to": "eu.prices"},
                       {"atMs": 1200, "event": "opened"}, {"atMs": 1300, "event": "dropped", "reason": "hwm"}]},
          {"id": "pub", "lifetime": "permanent", "resetKey": null, "settleMs": null,
           "broadcasting": "nothing", "delivery": "immediate", "status": "live", "supervised": true,
           "sinceMs": 5, "ageMs": 125000, "opens": 1, "recreates": 0, "deliveries": 1234, "drops": 12, "history": []},
          {"id": "feed[eu.prices]", "lifetime": "ephemeral", "resetKey": null, "settleMs": null,
           "broadcasting": "nothing", "delivery": "latest", "status": "settling", "supervised": false,
           "sinceMs": 5000, "ageMs": 100, "opens": 0, "recreates": 0, "deliveries": 0, "drops": 0, "history": []}
        ],
        "counters": {"cycles": 40, "changedCycles": 7, "opens": 9, "cancels": 2, "recreates": 1,
                     "deliveries": 12, "drops": 0, "live": 7, "lastMs": 0.04, "maxMs": 0.31}}
        """

    @Test func keepTableColumnsAndAlignment() throws {
        let keep = try document(KeepDocument.self, RenderingTests.keep)
        let text = KeepCommand.table([(nil, keep)], showNode: false).render()
        #expect(
            text == """
                ID               LIFETIME                 SETTLE  DELIVERY   STATE       AGE  OPENS  RECREATES  DELIVERED  DROPPED
                follow[prices]   ephemeral key=eu.prices    50ms  immediate  live       3.9s      2          1          0        0
                pub              permanent                     -  immediate  live       2m5s      1          0       1234       12
                feed[eu.prices]  ephemeral key=-               -  latest     settling  100ms      0          0          0        0

                """)
    }

    /// One live channel with the given id, opens and age.
    static func channel(_ id: String, opens: Int = 1, ageMs: Int = 10) -> KeepDocument.Channel {
        KeepDocument.Channel(
            id: id, lifetime: .permanent, broadcasting: "nothing", delivery: "immediate", status: .live,
            supervised: true, sinceMs: 0, ageMs: ageMs, opens: opens, recreates: 0, deliveries: 0, drops: 0,
            history: [])
    }

    static func keep(_ channels: [KeepDocument.Channel]) -> KeepDocument {
        KeepDocument(
            channels: channels,
            counters: .init(
                cycles: 0, changedCycles: 0, opens: 0, cancels: 0, recreates: 0,
                deliveries: 0, drops: 0, live: 0, lastMs: 0, maxMs: 0))
    }

    @Test func keepTableForAllNodesHasANodeColumn() throws {
        let keep = RenderingTests.keep([RenderingTests.channel("pub")])
        let text = KeepCommand.table([("n1", keep), ("node-2", keep)], showNode: true).render()
        #expect(
            text == """
                NODE    ID   LIFETIME   SETTLE  DELIVERY   STATE   AGE  OPENS  RECREATES  DELIVERED  DROPPED
                n1      pub  permanent       -  immediate  live   10ms      1          0          0        0
                node-2  pub  permanent       -  immediate  live   10ms      1          0          0        0

                """)
    }

    @Test func keepWatchRedrawsOnChangeButNotOnAge() throws {
        func shown(_ channel: KeepDocument.Channel) -> KeepCommand.Shown {
            KeepCommand.Shown(node: "n1", .success(RenderingTests.keep([channel])))
        }
        #expect(shown(RenderingTests.channel("pub", ageMs: 10)) == shown(RenderingTests.channel("pub", ageMs: 900)))
        #expect(shown(RenderingTests.channel("pub", ageMs: 10)) != shown(RenderingTests.channel("pub", opens: 2, ageMs: 900)))
    }

    @Test func colourOnlyWhenEnabled() throws {
        var table = Table(columns: [.init("ID"), .init("STATE")])
        table.append(["pub", "live"])
        #expect(table.render(style: Style(isEnabled: false), statusColumns: ["STATE"]) == "ID   STATE\npub  live\n")
        #expect(
            table.render(style: Style(isEnabled: true), statusColumns: ["STATE"])
                == "\u{1B}[1mID\u{1B}[0m   \u{1B}[1mSTATE\u{1B}[0m\npub  \u{1B}[32mlive\u{1B}[0m\n")
    }

    @Test func describeShowsEveryMemberAndHistory() throws {
        let keep = try document(KeepDocument.self, RenderingTests.keep)
        let channel = try #require(keep.channels.first)
        #expect(
            DescribeCommand.render(channel, node: "n1") == """
                Channel:       follow[prices]
                Node:          n1
                Lifetime:      ephemeral
                Reset key:     eu.prices
                Settle:        50ms
                Broadcasting:  nothing
                Delivery:      immediate
                Status:        live
                Supervised:    true
                Since:         1.200s
                Age:           3.9s
                Opens:         2
                Recreates:     1
                Delivered:     0
                Dropped:       0
                History:
                      AT  EVENT      DETAIL
                  0.100s  settling
                  0.150s  opened
                  1.150s  recreated  reset key changed from eu.old to eu.prices
                  1.200s  opened
                  1.300s  dropped    reason=hwm

                """)
        let empty = try #require(keep.channels.last)
        #expect(DescribeCommand.render(empty, node: "n1").hasSuffix("Dropped:       0\nHistory: (none)\n"))
    }

    @Test func stateSections() throws {
        var state = NodeState(id: "n1", settings: NodeSettings(limits: NodeLimits(maxNameBytes: 256, maxValueBytes: 16384)))
        state.nowMs = 5100
        state.feeds["eu.prices"] = Feed(value: "42")
        var follow = Follow(topic: "eu.prices")
        follow.lastValue = "42"
        follow.lastSender = "n2"
        follow.count = 3
        follow.duplicates = 2
        follow.reordered = 1
        state.follows["prices"] = follow
        var n2 = Peer(endpoint: "tcp://127.0.0.1:7102")
        n2.status = .alive
        n2.lastSeenMs = 5012
        n2.membership = .alive
        n2.incarnation = 1_764_600_000_000
        state.peers["n2"] = n2
        state.peers["n3"] = Peer(endpoint: "tcp://127.0.0.1:7103")
        #expect(
            StateCommand.render(state) == """
                NODE      n1  (up 5.1s)
                SETTINGS  feedIntervalMs=100 followSettleMs=50
                LIMITS    maxFeeds=10000 maxFollows=200000 maxNameBytes=256 maxPeers=1000 maxReplyBytes=67108864 maxRequestBytes=1048576 maxStreamsPerFollow=1024 maxValueBytes=16384 queueMessages=10000 snapshotMessagesPerSecond=20000

                FEEDS
                TOPIC      VALUE
                eu.prices  42

                FOLLOWS
                NAME    TOPIC      FROM  LAST VALUE  SENDER  COUNT  GAPS  DUPS  OLDER
                prices  eu.prices  -     42          n2          3     0     2      1

                PEERS
                ID  ENDPOINT              STATUS     INCARNATION  REPORTED ALIVE
                n2  tcp://127.0.0.1:7102  alive    1764600000000        88ms ago
                n3  tcp://127.0.0.1:7103  unknown              -           never

                """)
        var empty = NodeState(id: "n9")
        empty.nowMs = 10
        #expect(
            StateCommand.render(empty).hasSuffix(
                """
                FEEDS
                (none)

                FOLLOWS
                (none)

                PEERS
                (none)

                """))
        #expect(StateCommand.render(empty).hasPrefix("NODE      n9  (up 10ms)\nSETTINGS  feedIntervalMs=100 "))
    }

    /// Every leaf, by its dotted path, keys sorted as the document has them.
    @Test func metricsFlattenEveryLeaf() throws {
        let metrics = try document(
            JSONValue.self,
            """
            {"uptimeMs": 5100, "reconcile": {"cycles": 40, "lastMs": 0.04, "histogram": [[32768, 12], [40960, 25]]},
             "mailbox": {"depth": 0, "maxDepth": 14}, "process": {"rssBytes": 15728640}}
            """)
        #expect(
            MetricsCommand.table(metrics).render() == """
                METRIC                                 VALUE
                mailbox.depth                              0
                mailbox.maxDepth                          14
                process.rssBytes                    15728640
                reconcile.cycles                          40
                reconcile.histogram  [[32768,12],[40960,25]]
                reconcile.lastMs                        0.04
                uptimeMs                                5100

                """)
        let full = MetricsCommand.table(RenderingTests.metrics(live: 7)).render()
        #expect(full.contains("\nchannels.live                      7\n"), "\(full)")
    }

    /// A metrics document with every counter 0 but the live channels.
    static func metrics(live: Int) -> MetricsDocument {
        MetricsDocument(
            uptimeMs: 0,
            reconcile: .init(cycles: 0, changedCycles: 0, lastMs: 0, maxMs: 0, buildMs: 0, diffMs: 0, p50Ms: 0, p99Ms: 0, histogram: []),
            channels: .init(opens: live, cancels: 0, recreates: 0, live: live),
            messages: .init(
                published: 0, received: 0, malformed: 0, oversized: 0, gaps: 0, duplicates: 0,
                reordered: 0, restarts: 0, evicted: 0),
            snapshots: .init(served: 0, refused: 0), limits: .init(refusedActions: 0, subscriptionsUntracked: 0),
            mailbox: .init(depth: 0, maxDepth: 0), sockets: .init(open: 0, created: 0), process: .init(rssBytes: 0, fds: 0))
    }

    /// A state in which this node sees its peers with these statuses.
    static func state(_ id: String, seeing peers: [String: Peer.Status]) -> NodeState {
        var state = NodeState(id: id)
        for (peer, status) in peers {
            state.peers[peer] = Peer(endpoint: "e")
            state.peers[peer]?.status = status
        }
        return state
    }

    @Test func nodesTableShowsHowPeersSeeEachNode() throws {
        let n1 = NodeAddress(id: "n1", control: "tcp://127.0.0.1:7201", pub: "tcp://127.0.0.1:7101")
        let n2 = NodeAddress(id: "n2", control: "tcp://127.0.0.1:7202")
        let n3 = NodeAddress(id: "n3", control: "tcp://127.0.0.1:7203")
        let reports = [
            NodesCommand.Report(
                node: n1, ping: .success(PingDocument(node: "n1", uptimeMs: 65000, pub: "tcp://127.0.0.1:7101", control: "c", pid: 1)),
                state: RenderingTests.state("n1", seeing: ["n2": .alive, "n3": .gone]), metrics: RenderingTests.metrics(live: 7)),
            NodesCommand.Report(
                node: n2, ping: .success(PingDocument(node: "n2", uptimeMs: 900, pub: "tcp://127.0.0.1:7102", control: "c", pid: 1)),
                state: RenderingTests.state("n2", seeing: ["n1": .alive, "n3": .suspect]), metrics: RenderingTests.metrics(live: 12)),
            NodesCommand.Report(node: n3, ping: .failure(NodeRequestError(node: n3, kind: .unreachable(timeout: .seconds(2))))),
        ]
        #expect(
            NodesCommand.table(reports).render() == """
                ID  CONTROL               PUB                   REACHABLE  STATUS            INCARNATION  CHANNELS  UPTIME
                n1  tcp://127.0.0.1:7201  tcp://127.0.0.1:7101  yes        alive                       -         7    1m5s
                n2  tcp://127.0.0.1:7202  tcp://127.0.0.1:7102  yes        alive                       -        12   900ms
                n3  tcp://127.0.0.1:7203  -                     no         suspect:1,gone:1            -         -       -

                """)
        let documents = NodesCommand.documents(reports).map(\.text)
        #expect(
            documents[2]
                == #"{"id":"n3","control":"tcp://127.0.0.1:7203","pub":null,"reachable":false,"seenBy":{"n1":"gone","n2":"suspect"},"liveChannels":null,"ping":null,"error":"node n3 at tcp://127.0.0.1:7203 did not answer within 2s — is it running?"}"#
        )
    }

    @Test func controlErrorMessagesSayWhatToDo() {
        let node = NodeAddress(id: "n2", control: "tcp://127.0.0.1:7202")
        #expect(
            NodeRequestError(node: node, kind: .unreachable(timeout: .seconds(2))).description
                == "node n2 at tcp://127.0.0.1:7202 did not answer within 2s — is it running? Try 'rexctl nodes'.")
        #expect(
            NodeRequestError(node: node, kind: .refused(ControlError(.badAction, "action 'set': field 'topic' must be a string")))
                .description
                == "node n2 answered with an error: badAction: action 'set': field 'topic' must be a string")
    }
}

/// `-o json` lines: the codec's JSON, slashes plain, DEL/C1/bidi controls escaped; rexctl's
/// own documents in the order their members were added.
@Suite struct JSONOutputTests {
    @Test func terminalJSONKeepsTheValueAndDropsNothing() throws {
        let text = #"{"a":"tcp:\/\/h:1 \\\/ \"q\" \u001b\n é 😀 \#u{7f}\#u{9b}\#u{202e}","b":[1,0.04,null,true]}"#
        let line = TerminalJSON.text(Array(text.utf8))
        #expect(line == #"{"a":"tcp://h:1 \\/ \"q\" \u001b\n é 😀 \u007f\u009b\u202e","b":[1,0.04,null,true]}"#)
        #expect(try document(JSONValue.self, line) == document(JSONValue.self, text))
    }

    @Test func orderedDocumentsKeepTheirOrder() {
        var inner = OrderedJSON()
        inner.append("z", 1)
        inner.append("a", "x/y")
        var outer = OrderedJSON()
        outer.append("id", "n1")
        outer.append("inner", inner)
        outer.append("list", .array([.number("1.500"), .null]))
        outer.append("missing", nil as Int?)
        #expect(outer.text == #"{"id":"n1","inner":{"z":1,"a":"x/y"},"list":[1.500,null],"missing":null}"#)
    }
}
