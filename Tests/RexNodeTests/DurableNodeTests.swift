import Foundation
import NodeTestSupport
import RexControl
import SharedTestSupport
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// A node with a data directory: the control endpoint answers after the commit and says so, and
/// a restart on the same directory finds what was accepted, before its control endpoint opens.
@Suite struct DurableNodeTests {
    private func startDurableNode(
        _ directory: String, mode: DurabilityMode = .batch, limits: NodeLimits = NodeLimits(),
        adjust: (inout DurableOptions) -> Void = { _ in }, logger: NodeLogger? = nil
    ) throws -> Node {
        var options = DurableOptions(directory: directory, mode: mode)
        adjust(&options)
        var configuration = NodeConfiguration(
            id: "d1", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
            settings: NodeSettings(feedIntervalMs: 100, followSettleMs: 10, limits: limits), logLevel: .warning, durable: options)
        configuration.addPeer("n2", pub: "tcp://127.0.0.1:1", membership: "tcp://127.0.0.1:3")
        return try Node.start(configuration, logger: logger)
    }

    private func dispatch(_ node: Node, _ action: String) async throws -> [String: Any]? {
        try await controlRequest(node.controlEndpoint, #"{"v": 1, "op": "dispatch", "action": \#(action)}"#)
    }

    private func scratch() -> String {
        NSTemporaryDirectory() + "rex-durable-node-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    }

    @Test func acceptedActionsSurviveARestart() async throws {
        let directory = scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let node = try startDurableNode(directory)
        let reply = try await dispatch(node, #"{"type": "set", "topic": "eu.prices", "value": "42"}"#)
        let result = reply?["result"] as? [String: Any]
        #expect(result?["accepted"] as? Bool == true)
        #expect(result?["durability"] as? String == "batch")
        // Answered after the commit, so the store already has it (dispatched before the reply).
        #expect(await waitFor(node, timeout: .seconds(5)) { $0.feeds["eu.prices"]?.value == "42" })
        for action in [
            #"{"type": "follow", "name": "prices", "topic": "eu.prices", "from": "n2"}"#,
            #"{"type": "follow", "name": "all", "topic": "eu.*"}"#, #"{"type": "unfollow", "name": "all"}"#,
            #"{"type": "addPeer", "id": "n3", "endpoint": "tcp://127.0.0.1:2"}"#, #"{"type": "removePeer", "id": "n2"}"#,
            #"{"type": "set", "topic": "gone", "value": "1"}"#, #"{"type": "unset", "topic": "gone"}"#,
        ] {
            #expect((try await dispatch(node, action))?["ok"] as? Bool == true, "\(action)")
        }
        await node.stop()

        let restarted = try startDurableNode(directory)
        let state = restarted.state
        #expect(state.feeds == ["eu.prices": Feed(value: "42")])
        #expect(state.follows.keys.sorted() == ["prices"])
        #expect(state.follows["prices"]?.from == "n2" && state.follows["prices"]?.endpoint == nil)
        #expect(state.peers.keys.sorted() == ["n3"], "the configured n2 stays removed; the added n3 stays")
        await restarted.stop()
    }

    @Test func noneAnswersAtOnceAndStillJournals() async throws {
        let directory = scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let node = try startDurableNode(directory, mode: .none)
        let reply = try await dispatch(node, #"{"type": "set", "topic": "a", "value": "1"}"#)
        #expect((reply?["result"] as? [String: Any])?["durability"] as? String == "none")
        await node.stop()
        let restarted = try startDurableNode(directory, mode: .none)
        #expect(restarted.state.feeds == ["a": Feed(value: "1")])
        await restarted.stop()
    }

    @Test func limitsAreExactWhileActionsWaitForTheirCommit() async throws {
        let directory = scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let node = try startDurableNode(directory, limits: NodeLimits(maxFollows: 3))
        var codes: [String] = []
        for index in 0..<5 {
            let reply = try await dispatch(node, #"{"type": "follow", "name": "f\#(index)", "topic": "t"}"#)
            codes.append(reply?["ok"] as? Bool == true ? "ok" : ((reply?["error"] as? [String: Any])?["code"] as? String ?? "?"))
        }
        #expect(codes == ["ok", "ok", "ok", "limitReached", "limitReached"])
        await node.stop()
        let restarted = try startDurableNode(directory, limits: NodeLimits(maxFollows: 3))
        #expect(restarted.state.follows.count == 3 && restarted.state.refused == 0)
        await restarted.stop()
    }

    /// The SWIM membership adds peers behind the control endpoint's back: a member that joined
    /// fills the peer limit, so an operator's add-peer is refused at admission (limitReached),
    /// not journaled and then refused by the reducer — the restart shows nothing of it.
    @Test func aMemberLearnedByTheMembershipCountsAgainstThePeerLimit() async throws {
        let directory = scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tag = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        func configuration(_ id: String, seeds: [String]) -> NodeConfiguration {
            var configuration = NodeConfiguration(
                id: id, pubEndpoint: IPCTestEndpoint.make("rexledger-\(tag)-\(id).pub"), controlEndpoint: "tcp://127.0.0.1:*",
                membershipEndpoint: "tcp://127.0.0.1:*",
                settings: NodeSettings(feedIntervalMs: 100, followSettleMs: 10, limits: NodeLimits(maxPeers: 1)),
                logLevel: .error)
            configuration.membershipEndpoint = IPCTestEndpoint.make("rexledger-\(tag)-\(id).mem")
            configuration.membershipSeeds = seeds
            return configuration
        }
        var durable = configuration("d1", seeds: [])
        durable.durable = DurableOptions(directory: directory, mode: .batch)
        let node = try Node.start(durable)
        let joiner = try Node.start(configuration("n2", seeds: [durable.membershipEndpoint]))
        #expect(await waitFor(node, timeout: .seconds(10)) { $0.peers["n2"]?.status == .alive }, "n2 joined through d1")
        let reply = try await dispatch(node, #"{"type": "addPeer", "id": "n9", "endpoint": "tcp://127.0.0.1:9"}"#)
        #expect((reply?["error"] as? [String: Any])?["code"] as? String == "limitReached", "\(String(describing: reply))")
        #expect(node.state.refused == 0, "the reducer was not handed an action it refuses")
        await joiner.stop()
        await node.stop()
        let restarted = try Node.start(durable)
        #expect(restarted.state.peers["n9"] == nil, "nothing journaled")
        await restarted.stop()
    }

    @Test func aDamagedDirectoryRefusesToStartAndSaysWhatToDo() throws {
        let directory = scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 37) }).write(to: URL(fileURLWithPath: directory + "/node.db"))
        let error = #expect(throws: NodeError.self) { try startDurableNode(directory) }
        #expect(error?.code == .unusableState)
        #expect(error?.message.contains("move it aside") == true)
    }

    @Test func aFullDiskRefusesWhatItCouldNotCommitAndEverythingAfter() async throws {
        let directory = scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The database may not grow past 40 pages: the disk fills after a few dozen actions.
        let node = try startDurableNode(directory, adjust: { $0.maxDatabasePages = 40 })
        let value = String(repeating: "v", count: 3000)
        var accepted: [String] = []
        var refusal: [String: Any]?
        for index in 0..<200 {
            let reply = try await dispatch(node, #"{"type": "set", "topic": "t\#(index)", "value": "\#(value)"}"#)
            if reply?["ok"] as? Bool == true {
                #expect((reply?["result"] as? [String: Any])?["durability"] as? String == "batch")
                accepted.append("t\(index)")
            } else {
                refusal = reply?["error"] as? [String: Any]
                break
            }
        }
        #expect(accepted.count > 5 && accepted.count < 40, "\(accepted.count) actions fit")
        #expect(refusal?["code"] as? String == "notDurable")
        #expect((refusal?["message"] as? String)?.contains("it was not applied") == true, "\(refusal ?? [:])")
        // Fail-stop: every later action is refused, whatever it is; reads still work.
        let later = try await dispatch(node, #"{"type": "unset", "topic": "t0"}"#)
        #expect((later?["error"] as? [String: Any])?["code"] as? String == "notDurable")
        #expect(((later?["error"] as? [String: Any])?["message"] as? String)?.contains("until it is restarted") == true)
        #expect(try await controlRequest(node.controlEndpoint, #"{"v": 1, "op": "ping"}"#)?["ok"] as? Bool == true)
        let metrics = (try await controlRequest(node.controlEndpoint, #"{"v": 1, "op": "metrics"}"#))?["result"] as? [String: Any]
        let journal = metrics?["journal"] as? [String: Any]
        #expect(journal?["failed"] as? Bool == true)
        #expect(journal?["actionsCommitted"] as? Int == accepted.count)
        #expect(journal?["pendingActions"] as? Int == 0)
        // What the node holds is what it answered accepted: nothing refused was applied.
        #expect(Set(node.state.feeds.keys) == Set(accepted))
        await node.stop()

        // Restarted with room on the disk: exactly the accepted actions, and it takes more.
        let restarted = try startDurableNode(directory)
        #expect(Set(restarted.state.feeds.keys) == Set(accepted))
        #expect((try await dispatch(restarted, #"{"type": "set", "topic": "again", "value": "1"}"#))?["ok"] as? Bool == true)
        await restarted.stop()
    }

    @Test func metricsCountTheJournal() async throws {
        let directory = scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let node = try startDurableNode(directory, adjust: { $0.compactEveryActions = 2 })
        // One at a time: each is its own commit.
        for index in 0..<5 {
            #expect((try await dispatch(node, #"{"type": "set", "topic": "t\#(index)", "value": "v"}"#))?["ok"] as? Bool == true)
        }
        let reply = try await controlRequest(node.controlEndpoint, #"{"v": 1, "op": "metrics"}"#)
        let journal = (reply?["result"] as? [String: Any])?["journal"] as? [String: Any]
        #expect(journal?["durability"] as? String == "batch")
        #expect(journal?["commits"] as? Int == 5 && journal?["actionsCommitted"] as? Int == 5)
        let buckets = journal?["commitHistogram"] as? [[Int]] ?? []
        #expect(buckets.reduce(0) { $0 + ($1.last ?? 0) } == 5, "one duration per commit: \(buckets)")
        #expect((journal?["commitMs"] as? Double ?? 0) > 0)
        #expect(journal?["pendingActions"] as? Int == 0)
        #expect(journal?["compactions"] as? Int == 2, "after the 2nd and the 4th action")
        #expect(journal?["truncatedLogTails"] as? Int == 0 && journal?["truncatedJournalTails"] as? Int == 0)
        #expect(journal?["failed"] as? Bool == false)
        await node.stop()

        // A node without a data directory has no journal in its metrics.
        let plain = try startNode("p1")
        let plainMetrics = (try await controlRequest(plain.controlEndpoint, #"{"v": 1, "op": "metrics"}"#))?["result"] as? [String: Any]
        #expect(plainMetrics != nil && plainMetrics?["journal"] == nil)
        await plain.stop()
    }

    @Test func commandLineFlags() throws {
        guard
            case .run(let configuration) = try NodeCommand.parse([
                "--id", "n1", "--data-dir", "/tmp/x", "--durability", "none", "--compact-actions", "10", "--compact-bytes", "4096",
            ])
        else { Issue.record("expected a run invocation"); return }
        #expect(configuration.durable == DurableOptions(directory: "/tmp/x", mode: .none, compactEveryActions: 10, compactEveryBytes: 4096))
        let plain = try #require(try NodeCommand.parse(["--id", "n1", "--data-dir", "/tmp/x"]).runConfiguration)
        #expect(plain.durable?.mode == .batch)
        #expect(throws: NodeCommand.UsageError(message: "--durability takes none or batch (got 'always')")) {
            try NodeCommand.parse(["--id", "n1", "--data-dir", "/tmp/x", "--durability", "always"])
        }
        #expect(throws: NodeCommand.UsageError(message: "--durability, --compact-actions and --compact-bytes need --data-dir")) {
            try NodeCommand.parse(["--id", "n1", "--durability", "batch"])
        }
    }
}
