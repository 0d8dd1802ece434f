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
           "sinceMs": 5, "ageMs": 125000, "opens": 1, "recreates": 0, "deliveries": 1234, "drops": 12},
          {"id": "feed[eu.prices]", "lifetime": "ephemeral", "resetKey": null, "settleMs": null,
           "broadcasting": "nothing", "delivery": "latest", "status": "settling", "supervised": false,
           "sinceMs": 5000, "ageMs": 100, "opens": 0, "recreates": 0, "deliveries": 0, "drops": 0, "history": []}
        ],
        "counters": {"cycles": 40, "changedCycles": 7, "opens": 9, "cancels": 2, "recreates": 1,
                     "deliveries": 12, "drops": 0, "live": 7, "lastMs": 0.04, "maxMs": 0.31}}
        """

    @Test func keepTableColumnsAndAlignment() throws {
        let keep = try JSONValue.parse(RenderingTests.keep)
        let text = KeepCommand.table([(nil, keep)], showNode: false).render()
        #expect(text == """
            ID               LIFETIME                 SETTLE  DELIVERY   STATE       AGE  OPENS  RECREATES  DELIVERED  DROPPED
            follow[prices]   ephemeral key=eu.prices    50ms  immediate  live       3.9s      2          1          0        0
            pub              permanent                     -  immediate  live       2m5s      1          0       1234       12
            feed[eu.prices]  ephemeral key=-               -  latest     settling  100ms      0          0          0        0

            """)
    }

    @Test func keepTableForAllNodesHasANodeColumn() throws {
        let keep = try JSONValue.parse(#"{"channels": [{"id": "pub", "lifetime": "permanent", "settleMs": null, "delivery": "immediate", "status": "live", "ageMs": 10, "opens": 1, "recreates": 0, "deliveries": 0, "drops": 0}]}"#)
        let text = KeepCommand.table([("n1", keep), ("node-2", keep)], showNode: true).render()
        #expect(text == """
            NODE    ID   LIFETIME   SETTLE  DELIVERY   STATE   AGE  OPENS  RECREATES  DELIVERED  DROPPED
            n1      pub  permanent       -  immediate  live   10ms      1          0          0        0
            node-2  pub  permanent       -  immediate  live   10ms      1          0          0        0

            """)
    }

    @Test func keepChangeKeyIgnoresAge() throws {
        let before = try JSONValue.parse(#"{"channels": [{"id": "pub", "ageMs": 10, "opens": 1}]}"#)
        let older = try JSONValue.parse(#"{"channels": [{"id": "pub", "ageMs": 900, "opens": 1}]}"#)
        let reopened = try JSONValue.parse(#"{"channels": [{"id": "pub", "ageMs": 900, "opens": 2}]}"#)
        #expect(KeepCommand.changeKey(before) == KeepCommand.changeKey(older))
        #expect(KeepCommand.changeKey(before) != KeepCommand.changeKey(reopened))
    }

    @Test func colourOnlyWhenEnabled() throws {
        var table = Table(columns: [.init("ID"), .init("STATE")])
        table.append(["pub", "live"])
        #expect(table.render(style: Style(isEnabled: false), statusColumns: ["STATE"]) == "ID   STATE\npub  live\n")
        #expect(table.render(style: Style(isEnabled: true), statusColumns: ["STATE"])
            == "\u{1B}[1mID\u{1B}[0m   \u{1B}[1mSTATE\u{1B}[0m\npub  \u{1B}[32mlive\u{1B}[0m\n")
    }

    @Test func describeShowsEveryMemberAndHistory() throws {
        let keep = try JSONValue.parse(RenderingTests.keep)
        let channel = try #require(keep["channels"]?.elements?.first)
        #expect(DescribeCommand.render(channel, node: "n1") == """
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
        let empty = try #require(keep["channels"]?.elements?.last)
        #expect(DescribeCommand.render(empty, node: "n1").hasSuffix("Dropped:       0\nHistory: (none)\n"))
    }

    @Test func stateSections() throws {
        let state = try JSONValue.parse("""
            {"id": "n1",
             "settings": {"feedIntervalMs": 100, "followSettleMs": 50, "heartbeatIntervalMs": 500,
                          "limits": {"maxNameBytes": 256, "maxValueBytes": 16384}},
             "feeds": {"eu.prices": {"value": "42"}},
             "follows": {"prices": {"topic": "eu.prices", "from": null, "lastValue": "42", "lastSender": "n2",
                                    "count": 3, "gaps": 0, "duplicates": 2, "reordered": 1}},
             "peers": {"n2": {"endpoint": "tcp://127.0.0.1:7102", "status": "alive", "lastSeenMs": 5012,
                              "lastHeartbeat": 10, "gaps": 0, "restarts": 1},
                       "n3": {"endpoint": "tcp://127.0.0.1:7103", "status": "unknown", "lastSeenMs": null,
                              "lastHeartbeat": null, "gaps": 0}},
             "nowMs": 5100}
            """)
        #expect(StateCommand.render(state) == """
            NODE      n1  (up 5.1s)
            SETTINGS  feedIntervalMs=100 followSettleMs=50 heartbeatIntervalMs=500
            LIMITS    maxNameBytes=256 maxValueBytes=16384

            FEEDS
            TOPIC      VALUE
            eu.prices  42

            FOLLOWS
            NAME    TOPIC      FROM  LAST VALUE  SENDER  COUNT  GAPS  DUPS  OLDER
            prices  eu.prices  -     42          n2          3     0     2      1

            PEERS
            ID  ENDPOINT              STATUS   LAST SEEN  HEARTBEAT  GAPS  RESTARTS
            n2  tcp://127.0.0.1:7102  alive     88ms ago         10     0         1
            n3  tcp://127.0.0.1:7103  unknown      never          -     0         -

            """)
        let empty = try JSONValue.parse(#"{"id": "n9", "settings": {}, "feeds": {}, "follows": {}, "peers": {}, "nowMs": 10}"#)
        #expect(StateCommand.render(empty) == """
            NODE      n9  (up 10ms)
            SETTINGS  -

            FEEDS
            (none)

            FOLLOWS
            (none)

            PEERS
            (none)

            """)
    }

    @Test func metricsFlattenInDocumentOrder() throws {
        let metrics = try JSONValue.parse("""
            {"uptimeMs": 5100, "reconcile": {"cycles": 40, "lastMs": 0.04},
             "mailbox": {"depth": 0, "maxDepth": 14}, "process": {"rssBytes": 15728640}}
            """)
        #expect(MetricsCommand.table(metrics).render() == """
            METRIC               VALUE
            uptimeMs              5100
            reconcile.cycles        40
            reconcile.lastMs      0.04
            mailbox.depth            0
            mailbox.maxDepth        14
            process.rssBytes  15728640

            """)
    }

    @Test func nodesTableShowsHowPeersSeeEachNode() throws {
        let n1 = NodeAddress(id: "n1", control: "tcp://127.0.0.1:7201", pub: "tcp://127.0.0.1:7101")
        let n2 = NodeAddress(id: "n2", control: "tcp://127.0.0.1:7202")
        let n3 = NodeAddress(id: "n3", control: "tcp://127.0.0.1:7203")
        let reports = [
            NodesCommand.Report(
                node: n1, ping: .success(try JSONValue.parse(#"{"node": "n1", "uptimeMs": 65000, "pub": "tcp://127.0.0.1:7101"}"#)),
                state: try JSONValue.parse(#"{"peers": {"n2": {"status": "alive"}, "n3": {"status": "gone"}}}"#),
                metrics: try JSONValue.parse(#"{"channels": {"live": 7}}"#)),
            NodesCommand.Report(
                node: n2, ping: .success(try JSONValue.parse(#"{"node": "n2", "uptimeMs": 900, "pub": "tcp://127.0.0.1:7102"}"#)),
                state: try JSONValue.parse(#"{"peers": {"n1": {"status": "alive"}, "n3": {"status": "suspect"}}}"#),
                metrics: try JSONValue.parse(#"{"channels": {"live": 12}}"#)),
            NodesCommand.Report(node: n3, ping: .failure(ControlError(node: n3, kind: .unreachable(timeout: .seconds(2))))),
        ]
        #expect(NodesCommand.table(reports).render() == """
            ID  CONTROL               PUB                   REACHABLE  STATUS            CHANNELS  UPTIME
            n1  tcp://127.0.0.1:7201  tcp://127.0.0.1:7101  yes        alive                    7    1m5s
            n2  tcp://127.0.0.1:7202  tcp://127.0.0.1:7102  yes        alive                   12   900ms
            n3  tcp://127.0.0.1:7203  -                     no         suspect:1,gone:1         -       -

            """)
        let documents = NodesCommand.documents(reports).map(\.compactText)
        #expect(documents[2] == #"{"id":"n3","control":"tcp://127.0.0.1:7203","pub":null,"reachable":false,"seenBy":{"n1":"gone","n2":"suspect"},"liveChannels":null,"ping":null,"error":"node n3 at tcp://127.0.0.1:7203 did not answer within 2s — is it running?"}"#)
    }

    @Test func controlErrorMessagesSayWhatToDo() {
        let node = NodeAddress(id: "n2", control: "tcp://127.0.0.1:7202")
        #expect(ControlError(node: node, kind: .unreachable(timeout: .seconds(2))).description
            == "node n2 at tcp://127.0.0.1:7202 did not answer within 2s — is it running? Try 'rexctl nodes'.")
        #expect(ControlError(node: node, kind: .errorReply(code: "badAction", message: "action 'set': field 'topic' must be a string")).description
            == "node n2 answered with an error: badAction: action 'set': field 'topic' must be a string")
    }
}

@Suite struct JSONValueTests {
    @Test func roundTripKeepsOrderAndNumberText() throws {
        let text = #"{"z":1,"a":[true,false,null,0.04,-1.5e3],"m":{"k":"v \"q\" \\ \n \u0001 é 😀"}}"#
        let value = try JSONValue.parse(text)
        #expect(value.compactText == #"{"z":1,"a":[true,false,null,0.04,-1.5e3],"m":{"k":"v \"q\" \\ \n \u0001 é 😀"}}"#)
        #expect(value["m"]?["k"]?.stringValue == "v \"q\" \\ \n \u{01} é 😀")
        #expect(try JSONValue.parse(#" "\ud83d\ude00\/" "#) == .string("😀/"))
        #expect(try JSONValue.parse("[]") == .array([]))
        #expect(value["a"]?.elements?[3].doubleValue == 0.04)
        #expect(try JSONValue.parse("4.0").intValue == 4)
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "tru", "\"\\x\"", "\"a", "{} {}", "[1 2]", "\"\u{01}\""])
    func rejectsMalformed(text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }
}
