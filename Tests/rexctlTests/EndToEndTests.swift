import Foundation
import NodeTestSupport
import RexCluster
import RexControl
import RexFeeds
import RexNode
import Testing

@testable import rexctl

/// Two real nodes in-process (RexNode on free loopback ports), driven through `RexCtl.main`
/// exactly as an operator would: every action form, keep/state/metrics in table and JSON,
/// describe, wait (success, timeout, gone), nodes, error replies, the load generator, --watch.
@Suite(.serialized) struct EndToEndTests {
    /// n1 and n2, n2 knowing n1 from the start (n1 learns n2 from its probes), with fast timings.
    struct Cluster {
        let n1: Node
        let n2: Node

        /// The global options that address both nodes.
        var nodeOptions: [String] {
            ["--node", "n1=\(n1.controlEndpoint)", "--node", "n2=\(n2.controlEndpoint)"]
        }

        /// Runs rexctl against this cluster (arguments split on spaces).
        func run(_ line: String) async -> RunResult {
            await cli(line.split(separator: " ").map(String.init) + nodeOptions)
        }

        func run(_ arguments: [String]) async -> RunResult {
            await cli(arguments + nodeOptions)
        }

        static func start() throws -> Cluster {
            let settings = NodeSettings(feedIntervalMs: 20, followSettleMs: 10)
            let n1 = try Node.start(
                NodeConfiguration(
                    id: "n1", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*",
                    membershipEndpoint: "tcp://127.0.0.1:*",
                    settings: settings, logLevel: .error))
            var second = NodeConfiguration(
                id: "n2", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
                settings: settings, logLevel: .error)
            second.addPeer("n1", pub: n1.pubEndpoint, membership: n1.membershipEndpoint)
            let n2 = try Node.start(second)
            return Cluster(n1: n1, n2: n2)
        }

        func stop() async {
            await n2.stop()
            await n1.stop()
        }
    }

    func json(_ result: RunResult) throws -> JSONValue {
        try document(JSONValue.self, result.stdout)
    }

    @Test func everyActionForm() async throws {
        let cluster = try Cluster.start()
        defer { Task { await cluster.stop() } }

        // add-peer: n1 learns n2's publisher; both then see each other alive.
        let addPeer = await cluster.run(["send", "n1", "add-peer", "n2", cluster.n2.pubEndpoint])
        #expect(addPeer.code == 0, "\(addPeer)")
        #expect(
            addPeer.stdout == #"n1 accepted {"endpoint":"\#(cluster.n2.pubEndpoint)","id":"n2","type":"addPeer"}"# + "\n"
                || addPeer.stdout.hasPrefix("n1 accepted {"), "\(addPeer)")
        #expect(await cluster.run("wait n1 --for state=peers.n2.status=alive --timeout 30s").code == 0)
        #expect(await cluster.run("wait n2 --for state=peers.n1.status=alive --timeout 30s").code == 0)

        // follow (with --from) then set: the value travels n1 → n2.
        let follow = await cluster.run("send n2 follow prices eu.prices --from n1")
        #expect(follow.code == 0, "\(follow)")
        #expect(follow.stdout.hasPrefix("n2 accepted {"))
        #expect(follow.stdout.contains(#""from":"n1""#))
        let live = await cluster.run("wait n2 --for keep=follow[prices] --timeout 30s")
        #expect(live.code == 0, "\(live)")
        #expect(live.stdout.hasPrefix("n2: keep=follow[prices] holds (after "))
        let set = await cluster.run("send n1 set eu.prices 42")
        #expect(set.code == 0, "\(set)")
        #expect(set.stdout.contains(#""value":"42""#))
        let arrived = await cluster.run("wait n2 --for state=follows.prices.lastValue=42 --timeout 30s")
        #expect(arrived.code == 0, "\(arrived)")
        #expect(await cluster.run("wait n1 --for state=feeds.eu.prices.value=42 --timeout 30s").code == 0)

        // publish: one message now, to a prefix follow.
        #expect(await cluster.run("send n2 follow news news.*").code == 0)
        #expect(await cluster.run("wait n2 --for keep=follow[news] --timeout 30s").code == 0)
        // n1's retained news.ready reaches the follow by snapshot once its subscription is at n1:
        // from then on one message is enough.
        #expect(await cluster.run("send n1 set news.ready 1").code == 0)
        #expect(await cluster.run("wait n2 --for state=follows.news.lastValue=1 --timeout 30s").code == 0)
        #expect(await cluster.run("send n1 publish news.eu hello").code == 0)
        #expect(await cluster.run("wait n2 --for state=follows.news.lastValue=hello --timeout 30s").code == 0)

        // Raw --json, with {i} repetition numbers through the load generator.
        let raw = await cluster.run(["send", "n1", "--json", #"{"type": "set", "topic": "eu.prices", "value": "raw"}"#])
        #expect(raw.code == 0, "\(raw)")
        #expect(await cluster.run("wait n2 --for state=follows.prices.lastValue=raw --timeout 30s").code == 0)

        // unset: the feed disappears from n1's state and keep set (its channel is cancelled in
        // the batch that removed it, before the node's observer sees the state).
        #expect(await cluster.run("send n1 unset eu.prices").code == 0)
        #expect(await waitFor(cluster.n1) { $0.feeds["eu.prices"] == nil })
        #expect((try json(await cluster.run("state n1 -o json")))["feeds"]?["eu.prices"] == nil)
        #expect(await !cluster.run("keep n1").stdout.contains("feed[eu.prices]"))

        // unfollow: the follow's channel leaves n2's keep set.
        #expect(await cluster.run("send n2 unfollow prices").code == 0)
        #expect(await waitFor(cluster.n2) { $0.follows["prices"] == nil })
        #expect(await !cluster.run("keep n2").stdout.contains("follow[prices]"))

        // remove-peer: n1 forgets n2 (its membership may learn it again later, so no rexctl
        // read after the fact).
        #expect(await cluster.run("send n1 remove-peer n2").code == 0)
        #expect(await waitFor(cluster.n1) { $0.peers["n2"] == nil })

        // -o json prints exactly the node's result: accepted plus the echoed action.
        let echoed = try json(await cluster.run("-o json send n1 set eu.rates 1.5"))
        #expect(echoed["accepted"] == .bool(true))
        #expect(echoed["action"]?["value"] == .string("1.5"))
        await cluster.stop()
    }

    @Test func errorReplyExits2WithCodeAndMessage() async throws {
        let cluster = try Cluster.start()
        defer { Task { await cluster.stop() } }
        let result = await cluster.run(["send", "n1", "--json", #"{"type": "set", "topic": 5}"#])
        #expect(result.code == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == "Error: node n1 answered with an error: badAction: action 'set': field 'topic' must be a string\n")
        let unknown = await cluster.run(["send", "n1", "--json", #"{"type": "explode"}"#])
        #expect(unknown.code == 2)
        #expect(unknown.stderr.hasPrefix("Error: node n1 answered with an error: unknownAction: "))
        // The node still works afterwards.
        #expect(await cluster.run("state n1").code == 0)
        await cluster.stop()
    }

    @Test func keepStateMetricsDescribeInTableAndJSON() async throws {
        let cluster = try Cluster.start()
        defer { Task { await cluster.stop() } }
        #expect(await cluster.run("send n2 follow prices eu.prices").code == 0)
        #expect(await cluster.run("wait n2 --for keep=follow[prices] --for keep=pub --timeout 30s").code == 0)

        let keep = await cluster.run("keep n2")
        #expect(keep.code == 0, "\(keep)")
        let lines = keep.stdout.split(separator: "\n")
        #expect(
            lines.first?.split(separator: " ", omittingEmptySubsequences: true)
                == ["ID", "LIFETIME", "SETTLE", "DELIVERY", "STATE", "AGE", "OPENS", "RECREATES", "DELIVERED", "DROPPED"])
        #expect(lines.contains { $0.hasPrefix("pub ") && $0.contains("permanent") && $0.contains("live") })
        #expect(lines.contains { $0.hasPrefix("follow[prices] ") && $0.contains("ephemeral key=eu.prices") })
        // Every row has its columns where the header says.
        let stateColumn = try #require(lines.first?.range(of: "STATE")).lowerBound.utf16Offset(in: String(lines.first!))
        for line in lines.dropFirst() {
            let cell = String(line).utf16.dropFirst(stateColumn).prefix(4)
            #expect(String(cell) == "live" || String(cell) == "sett", "\(line)")
        }

        let keepJSON = try document(KeepDocument.self, await cluster.run("-o json keep n2").stdout)
        let ids = keepJSON.channels.map(\.id)
        #expect(ids.contains("pub") && ids.contains("follow[prices]"))
        #expect(keepJSON.counters.cycles > 0)

        let all = await cluster.run("keep --all -o json")
        #expect(all.code == 0)
        #expect(all.stdout.split(separator: "\n").count == 2)
        let allTable = await cluster.run("keep --all")
        #expect(allTable.stdout.hasPrefix("NODE  ID "))
        #expect(allTable.stdout.contains("\nn1    pub "))
        #expect(allTable.stdout.contains("\nn2    pub "))

        let state = await cluster.run("state n2")
        #expect(state.code == 0)
        #expect(state.stdout.hasPrefix("NODE      n2  (up "))
        #expect(
            state.stdout.contains(
                "\nFOLLOWS\nNAME    TOPIC      FROM  LAST VALUE  SENDER  COUNT  GAPS  DUPS  OLDER\nprices  eu.prices  -     -           -           0     0     0      0\n"
            ))
        #expect(state.stdout.contains("\nPEERS\nID  ENDPOINT"))
        let stateJSON = try json(await cluster.run("state n2 -o json"))
        #expect(stateJSON["id"] == .string("n2"))
        #expect(stateJSON["follows"]?["prices"]?["topic"] == .string("eu.prices"))

        let metrics = await cluster.run("metrics n1")
        #expect(metrics.code == 0)
        #expect(metrics.stdout.hasPrefix("METRIC "))
        #expect(metrics.stdout.contains("\nreconcile.cycles "))
        #expect(metrics.stdout.contains("\nchannels.live "))
        let metricsJSON = try document(MetricsDocument.self, await cluster.run("-o json metrics n1").stdout)
        #expect(metricsJSON.uptimeMs >= 0)

        let describe = await cluster.run("describe n2 follow[prices]")
        #expect(describe.code == 0, "\(describe)")
        #expect(
            describe.stdout.hasPrefix(
                "Channel:       follow[prices]\nNode:          n2\nLifetime:      ephemeral\nReset key:     eu.prices\n"))
        #expect(describe.stdout.contains("History:\n      AT  EVENT"))
        #expect(describe.stdout.contains("  settling\n"))
        #expect(describe.stdout.contains("  opened"))
        let describeJSON = try document(KeepDocument.Channel.self, await cluster.run("-o json describe n2 follow[prices]").stdout)
        #expect(describeJSON.id == "follow[prices]")
        #expect(!describeJSON.history.isEmpty)

        // Changing the topic recreates the channel; describe tells why.
        #expect(await cluster.run("send n2 follow prices eu.other").code == 0)
        // Live again with the new topic: the channel was recreated.
        #expect(await cluster.run("wait n2 --for state=follows.prices.topic=eu.other --for keep=follow[prices] --timeout 30s").code == 0)
        let recreated = await cluster.run("describe n2 follow[prices]")
        #expect(recreated.stdout.contains("reset key changed from eu.prices to eu.other"), "\(recreated.stdout)")

        let missing = await cluster.run("describe n2 follow[nothing]")
        #expect(missing.code == 1)
        #expect(missing.stderr.hasPrefix("Error: channel 'follow[nothing]' is not in n2's keep set — it has: "))
        await cluster.stop()
    }

    @Test func waitSucceedsTimesOutAndSeesPeersGo() async throws {
        let cluster = try Cluster.start()
        var stopped = false
        defer { if !stopped { Task { await cluster.stop() } } }
        #expect(await cluster.run(["send", "n1", "add-peer", "n2", cluster.n2.pubEndpoint]).code == 0)

        let holds = await cluster.run("wait n1 --for keep=pub --for state=id=n1 --timeout 30s")
        #expect(holds.code == 0, "\(holds)")
        #expect(holds.stdout.hasPrefix("n1: keep=pub, state=id=n1 hold (after "))
        let holdsJSON = await cluster.run("wait n1 --for keep=pub -o json --timeout 30s")
        #expect(holdsJSON.code == 0)
        #expect(try document(KeepDocument.self, holdsJSON.stdout).channels.contains { $0.id == "pub" })

        let timeout = await cluster.run("wait n1 --for keep=follow[never] --timeout 300ms")
        #expect(timeout.code == 1, "\(timeout)")
        expectEndedAtDeadline(timeout, .milliseconds(300), before: .milliseconds(300) + GlobalOptions.defaultTimeout)
        #expect(
            timeout.stderr == "Error: n1: keep=follow[never] did not hold within 300ms (last seen: follow[never] is not in the keep set)\n")

        let value = await cluster.run("wait n1 --for state=settings.followSettleMs=11 --timeout 200ms")
        #expect(value.code == 1)
        #expect(value.stderr.contains("(last seen: settings.followSettleMs is 10)"))

        #expect(await cluster.run("wait n1 --for state=peers.n2.status=alive --timeout 30s").code == 0)
        await cluster.n2.stop()
        let gone = await cluster.run("wait n1 --for gone=n2 --timeout 30s")
        #expect(gone.code == 0, "\(gone)")
        #expect(gone.stdout.hasPrefix("n1: gone=n2 holds"))
        await cluster.n1.stop()
        stopped = true
    }

    @Test func nodesShowsReachabilityAndPeerStatus() async throws {
        let cluster = try Cluster.start()
        defer { Task { await cluster.stop() } }
        #expect(await cluster.run(["send", "n1", "add-peer", "n2", cluster.n2.pubEndpoint]).code == 0)
        #expect(await cluster.run("wait n1 --for state=peers.n2.status=alive --timeout 30s").code == 0)
        #expect(await cluster.run("wait n2 --for state=peers.n1.status=alive --timeout 30s").code == 0)

        let nodes = await cluster.run("nodes")
        #expect(nodes.code == 0, "\(nodes)")
        let lines = nodes.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(lines.first == ["ID", "CONTROL", "PUB", "REACHABLE", "STATUS", "INCARNATION", "CHANNELS", "UPTIME"])
        #expect(lines.count == 3)
        #expect(lines[1].prefix(5) == ["n1", Substring(cluster.n1.controlEndpoint), Substring(cluster.n1.pubEndpoint), "yes", "alive"])
        #expect(lines[2].prefix(5) == ["n2", Substring(cluster.n2.controlEndpoint), Substring(cluster.n2.pubEndpoint), "yes", "alive"])

        let documents = await cluster.run("nodes -o json").stdout.split(separator: "\n").compactMap {
            try? document(JSONValue.self, String($0))
        }
        #expect(documents.count == 2)
        #expect(documents.first?["reachable"] == .bool(true))
        #expect(documents.first?["seenBy"]?["n2"] == .string("alive"))
        #expect(documents.first?["ping"]?["node"] == .string("n1"))

        // A third node that is down: listed as unreachable, exit 2, the others still shown.
        let down = try unusedLoopbackEndpoint()
        let partial = await cli(["nodes", "--timeout", "300ms", "--node", "n3=\(down)"] + cluster.nodeOptions)
        #expect(partial.code == 2)
        #expect(partial.stdout.contains(" yes "))
        #expect(partial.stdout.contains("n3  \(down)"))
        #expect(partial.stderr == "Error: node n3 at \(down) did not answer within 300ms — is it running?\n")
        await cluster.stop()
    }

    @Test func loadGeneratorAndWatch() async throws {
        let cluster = try Cluster.start()
        defer { Task { await cluster.stop() } }
        let load = await cluster.run(["send", "n1", "set", "load", "v{i}", "--count", "40", "--rate", "200/s"])
        #expect(load.code == 0, "\(load)")
        #expect(load.stdout.hasPrefix("n1 accepted 40/40 actions in "))
        #expect(load.stdout.hasSuffix("; target 200.0/s)\n"))
        #expect(load.elapsed >= .milliseconds(190))
        #expect(await cluster.run("wait n1 --for state=feeds.load.value=v40 --timeout 30s").code == 0)

        let loadJSON = try json(await cluster.run("send n1 set load x{i} --count 5 -o json"))
        #expect(loadJSON["accepted"] == .number(5))

        let watch = await cluster.run("keep n1 --watch --timeout 700ms")
        #expect(watch.code == 0, "\(watch)")
        expectEndedAtDeadline(watch, .milliseconds(700), before: .milliseconds(700) + GlobalOptions.defaultTimeout)
        #expect(watch.stdout.hasPrefix("ID "))
        #expect(watch.stdout.contains("\npub "))
        let watchJSON = await cluster.run("keep n1 --watch --timeout 300ms -o json")
        #expect(watchJSON.code == 0)
        #expect(watchJSON.stdout.split(separator: "\n").allSatisfy { (try? document(KeepDocument.self, String($0))) != nil })
        await cluster.stop()
    }

    /// `top` into a buffer (not a terminal): --count samples of plain tables, rates from the
    /// second on, and exit 2 once a node stops answering.
    @Test func topPrintsPlainSamplesAndSeesANodeGo() async throws {
        let cluster = try Cluster.start()
        #expect(await cluster.run("wait n1 --for state=peers.n2.status=alive --timeout 30s").code == 0)
        #expect(await cluster.run("wait n2 --for state=peers.n1.status=alive --timeout 30s").code == 0)
        let top = await cluster.run("top --count 3 --interval 150ms")
        #expect(top.code == 0, "\(top)")
        let lines = top.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.filter { $0.hasPrefix("rexctl top — 2 nodes, 2 up, every 150ms — sample ") }.count == 3)
        #expect(lines.filter { $0.hasPrefix("NODE  STATUS  CYCLES/S") }.count == 3)
        let n1Rows = lines.filter { $0.hasPrefix("n1 ") }
        #expect(n1Rows.count == 3)
        #expect(n1Rows.first?.split(separator: " ", omittingEmptySubsequences: true)[2] == "-", "no rate in the first sample")
        for row in n1Rows.dropFirst() {
            let cells = row.split(separator: " ", omittingEmptySubsequences: true)
            #expect(cells[1] == "up" && Double(cells[2]) != nil && Double(cells[3]) != nil, "\(row)")
            #expect(cells[8] == "alive:1", "n1 sees n2 alive: \(row)")
        }
        let n2Members = lines.filter { $0.hasPrefix("n2 ") }.map { $0.split(separator: " ", omittingEmptySubsequences: true)[8] }
        #expect(n2Members.count == 3 && n2Members.allSatisfy { $0 == "alive:1" }, "\(n2Members)")
        #expect(top.elapsed >= .milliseconds(290), "two intervals between three samples")
        #expect(!top.stdout.contains("\u{1B}"))

        await cluster.n2.stop()
        let down = await cluster.run(["top", "--count", "1", "--timeout", "200ms"])
        #expect(down.code == 2, "\(down)")
        #expect(down.stdout.contains("\nn2    down "), "\(down.stdout)")
        await cluster.n1.stop()
    }
}

/// rexctl against a node of another feature (``Tally``): `send --json` carries its actions,
/// `state` shows its document, `wait --for state=PATH=VALUE` reads paths into it, `nodes` lists
/// it without the feeds' peers.
@Suite(.serialized) struct AnyFeatureCommandTests {
    @Test func sendStateWaitAndNodesWorkForAnyFeature() async throws {
        let node = try RexNode.Node<Tally>.start(
            NodeConfiguration(
                id: "t1", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
                logLevel: .error))
        let options = ["--node", "t1=\(node.controlEndpoint)"]
        let sent = await cli(["send", "t1", "--json", #"{"type":"mark","key":"k1"}"#] + options)
        #expect(sent.code == 0, "\(sent.stderr)")
        let unknown = await cli(["send", "t1", "--json", #"{"type":"set","topic":"a","value":"1"}"#] + options)
        #expect(unknown.code != 0 && unknown.stderr.contains("mark, clear"), "\(unknown.stderr)")

        let waited = await cli(["wait", "t1", "--for", "state=marked.0=k1", "--timeout", "5s"] + options)
        #expect(waited.code == 0, "\(waited.stderr)")
        let state = await cli(["state", "t1"] + options)
        #expect(state.code == 0 && state.stdout.contains(#""marked": ["#) && state.stdout.contains(#""k1""#), "\(state.stdout)")
        let json = await cli(["state", "t1", "-o", "json"] + options)
        #expect(json.stdout.contains(#"{"marked":["k1"],"node":"t1"}"#), "\(json.stdout)")
        let nodes = await cli(["nodes"] + options)
        #expect(nodes.code == 0 && nodes.stdout.contains("t1"), "\(nodes.stdout) \(nodes.stderr)")
        await node.stop()
    }
}
