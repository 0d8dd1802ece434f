import RexCluster
import RexControl
import RexFeeds
import Testing

@testable import rexctl

/// Whether `text` holds a character a terminal acts on or that reorders text: C0 controls
/// other than the newlines that end lines, DEL, C1 controls, bidi overrides and isolates.
func containsRawControl(_ text: String, allowingNewlines: Bool = true) -> Bool {
    text.unicodeScalars.contains { scalar in
        if allowingNewlines && scalar == "\n" { return false }
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

/// Names and values from a node are data, not terminal commands: every table and text output
/// shows control characters as visible escapes; `-o json` stays valid JSON without raw controls.
@Suite struct TerminalEscapingTests {
    /// The scheme of docs/rexctl.md, character class by character class.
    @Test func escapeScheme() {
        #expect(TerminalText.escaped("plain eu.prices é 漢字 😀") == "plain eu.prices é 漢字 😀")
        #expect(TerminalText.escaped("a\\e") == #"a\\e"#)
        #expect(TerminalText.escaped("\n\r\t\u{1B}") == #"\n\r\t\e"#)
        #expect(
            TerminalText.escaped("\u{00}\u{07}\u{08}\u{1F}\u{7F}\u{80}\u{9B}\u{9F}")
                == #"\u{00}\u{07}\u{08}\u{1f}\u{7f}\u{80}\u{9b}\u{9f}"#)
        #expect(TerminalText.escaped("\u{202A}\u{202E}\u{2066}\u{2069}") == #"\u{202a}\u{202e}\u{2066}\u{2069}"#)
        #expect(TerminalText.escaped("\u{A0}\u{2029}\u{2070}") == "\u{A0}\u{2029}\u{2070}", "just outside the ranges")
    }

    @Test func keepTableEscapesCellsAndAlignsOnTheEscapedText() throws {
        let keep = try document(
            KeepDocument.self,
            #"""
            {"channels": [{"id": "evil\u001b]0;pwned\u0007", "lifetime": "ephemeral", "resetKey": "\u001b[2J\\e",
                           "settleMs": null, "broadcasting": "nothing", "delivery": "\u202elatest", "status": "live",
                           "supervised": true, "sinceMs": 0, "ageMs": 10, "opens": 1, "recreates": 0, "deliveries": 0,
                           "drops": 0, "history": []},
                          {"id": "pub", "lifetime": "permanent", "resetKey": null, "settleMs": null, "broadcasting": "nothing",
                           "delivery": "immediate", "status": "live", "supervised": true, "sinceMs": 0, "ageMs": 10,
                           "opens": 1, "recreates": 0, "deliveries": 0, "drops": 0, "history": []}],
             "counters": {"cycles": 0, "changedCycles": 0, "opens": 0, "cancels": 0, "recreates": 0, "deliveries": 0,
                          "drops": 0, "live": 0, "lastMs": 0, "maxMs": 0}}
            """#)
        let text = KeepCommand.table([(nil, keep)], showNode: false).render()
        #expect(
            text == #"""
                ID                    LIFETIME                SETTLE  DELIVERY        STATE   AGE  OPENS  RECREATES  DELIVERED  DROPPED
                evil\e]0;pwned\u{07}  ephemeral key=\e[2J\\e       -  \u{202e}latest  live   10ms      1          0          0        0
                pub                   permanent                    -  immediate       live   10ms      1          0          0        0

                """#)
    }

    @Test func stateEscapesKeysAndValuesOfEverySection() throws {
        var state = NodeState(id: "n1\u{1B}[H")
        state.nowMs = 10
        state.feeds["t\u{9B}31m"] = Feed(value: "\r\n")
        var follow = Follow(topic: "\u{2066}eu")
        follow.lastValue = "\u{1B}[2J"
        follow.lastSender = "n\u{7F}2"
        follow.count = 1
        state.follows["f\u{202E}"] = follow
        state.peers["p\u{2069}"] = Peer(endpoint: "tcp://x\u{0}")
        state.peers["p\u{2069}"]?.status = .alive
        state.peers["p\u{2069}"]?.lastSeenMs = 5
        let text = StateCommand.render(state)
        #expect(!containsRawControl(text), "\(text.debugDescription)")
        #expect(text.hasPrefix(#"NODE      n1\e[H  (up 10ms)"#), "\(text)")
        #expect(
            text.contains(
                #"""

                FEEDS
                TOPIC       VALUE
                t\u{9b}31m  \r\n

                """#), "\(text)")
        #expect(text.contains(#"f\u{202e}  \u{2066}eu  -     \e[2J       n\u{7f}2"#), "\(text)")
        #expect(text.contains(#"p\u{2069}  tcp://x\u{00}  alive"#), "\(text)")
    }

    @Test func describeEscapesValuesAndHistory() throws {
        let channel = KeepDocument.Channel(
            id: "c\u{1B}[31m", lifetime: .ephemeral, resetKey: "\u{85}", broadcasting: "nothing", delivery: "immediate",
            status: .live, supervised: true, sinceMs: 0, ageMs: 0, opens: 1, recreates: 0, deliveries: 0, drops: 0,
            history: [ChannelEvent(atMs: 200, .recreated(from: "a\nb", to: "c")), ChannelEvent(atMs: 300, .dropped(reason: "\u{1B}[5m"))])
        #expect(
            DescribeCommand.render(channel, node: "n1") == #"""
                Channel:       c\e[31m
                Node:          n1
                Lifetime:      ephemeral
                Reset key:     \u{85}
                Settle:        -
                Broadcasting:  nothing
                Delivery:      immediate
                Status:        live
                Supervised:    true
                Since:         0.000s
                Age:           0ms
                Opens:         1
                Recreates:     0
                Delivered:     0
                Dropped:       0
                History:
                      AT  EVENT      DETAIL
                  0.200s  recreated  reset key changed from a\nb to c
                  0.300s  dropped    reason=\e[5m

                """#)
    }

    @Test func metricsEscapePathsAndValues() throws {
        let metrics = try document(JSONValue.self, #"{"a\nb": "v\tw", "ok": 1}"#)
        #expect(
            MetricsCommand.table(metrics).render() == #"""
                METRIC  VALUE
                a\nb     v\tw
                ok          1

                """#)
    }

    @Test func nodesTableEscapesWhatPingReturned() throws {
        let n1 = NodeAddress(id: "n1", control: "tcp://127.0.0.1:7201")
        let ping = PingDocument(node: "n1", uptimeMs: 900, pub: "tcp://h:1\u{1B}[8m", control: "c", pid: 1)
        let text = NodesCommand.table([NodesCommand.Report(node: n1, ping: .success(ping))]).render()
        #expect(!containsRawControl(text), "\(text.debugDescription)")
        #expect(text.contains(#"tcp://h:1\e[8m  yes"#), "\(text)")
    }

    /// `-o json` is not escaped for the terminal, but it is still JSON, and JSON escapes
    /// controls itself (also DEL, C1 and bidi controls, which RFC 8259 would allow raw).
    @Test func jsonOutputIsValidJSONWithoutRawControls() throws {
        var state = NodeState(id: "n1")
        state.feeds["t\u{1B}]0;x\u{07}"] = Feed(value: "\u{1B}[2J\u{07}\u{7F}\u{9B}31m\u{202E}evil\u{2066}\n\\e")
        let stdout = BufferOutput()
        let context = CommandContext(
            globals: GlobalOptions(), stdout: stdout, stderr: BufferOutput(),
            environment: emptyEnvironment)
        context.printJSON(state)
        #expect(stdout.text.hasSuffix("\n"))
        let line = String(stdout.text.dropLast())
        #expect(!containsRawControl(line, allowingNewlines: false), "\(line.debugDescription)")
        #expect(try document(NodeState.self, line) == state)
    }

    /// Error lines go through the same escaping: text the operator typed...
    @Test func usageErrorsEscapeWhatTheyQuote() async {
        let result = await cli(["state", "n\u{1B}[2J", "--node", "n1=tcp://127.0.0.1:1"])
        #expect(result.code == 64)
        #expect(result.stderr.hasPrefix(#"Error: unknown node 'n\e[2J' — known nodes: n1 (from --node)"# + "\n"), "\(result)")
        #expect(!containsRawControl(result.stderr))
    }

    /// ...and the code and message of a node's error reply.
    @Test func errorRepliesAreEscaped() async throws {
        let node = try CannedNode { _, id in
            #"{"v":1,"id":"\#(id)","ok":false,"error":{"code":"bad\u001b[2J","message":"m\u0007\u009b\\"}}"#
        }
        defer { node.stop() }
        let result = await cli(["state", "n1", "--node", "n1=\(node.endpoint)"])
        #expect(result.code == 2, "\(result)")
        #expect(result.stderr == #"Error: node n1 answered with an error: bad\e[2J: m\u{07}\u{9b}\\"# + "\n")
    }
}
