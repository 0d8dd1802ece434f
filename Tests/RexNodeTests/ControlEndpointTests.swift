import Foundation
import NodeTestSupport
import RexCluster
import RexControl
import RexFeeds
import RexNode
import Testing

/// The control endpoint answers every request; bad ones get error replies and the node lives on.
@Suite(.serialized) struct ControlEndpointTests {
    func errorCode(_ reply: [String: Any]?) -> String? {
        (reply?["error"] as? [String: Any])?["code"] as? String
    }

    @Test func malformedRequestsGetErrorRepliesAndTheNodeKeepsRunning() async throws {
        let node = try startNode("c1", limits: NodeLimits(maxNameBytes: 16, maxValueBytes: 32, maxRequestBytes: 512))
        let endpoint = node.controlEndpoint
        let cases: [(String, String)] = [
            ("not json", "badRequest"),
            ("[1, 2]", "badRequest"),
            (#"{"op": "ping"}"#, "badRequest"),
            (#"{"v": 2, "op": "ping"}"#, "badVersion"),
            (#"{"v": 1, "op": "explode"}"#, "unknownOp"),
            (#"{"v": 1, "op": "dispatch"}"#, "badRequest"),
            (#"{"v": 1, "op": "dispatch", "action": {"type": "teleport"}}"#, "unknownAction"),
            (#"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": 5, "value": "x"}}"#, "badAction"),
            (#"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "t"}}"#, "badAction"),
            (#"{"v": 1, "op": "dispatch", "action": {"type": "addPeer", "id": "x", "endpoint": "nowhere"}}"#, "badAction"),
            // Regressions from the hostile-input review: only the integer 1 is version 1 ...
            (#"{"v": true, "op": "ping"}"#, "badRequest"),
            (#"{"v": 1.0, "op": "ping"}"#, "badRequest"),
            (#"{"v": "1", "op": "ping"}"#, "badRequest"),
            (#"{"v": 18446744073709551616, "op": "ping"}"#, "badRequest"),
            // ... the node's own topics cannot be set or published by an operator ...
            (#"{"v": 1, "op": "dispatch", "action": {"type": "publish", "topic": "$hb.x", "payload": ""}}"#, "badAction"),
            (#"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "$snap.1.1", "value": "x"}}"#, "badAction"),
            // ... and names, values and whole requests have limits (this node: 16-byte names,
            // 32-byte values, 512-byte requests, 2 feeds).
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "\#(String(repeating: "t", count: 17))", "value": "x"}}"#,
                "tooLarge"
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "follow", "name": "\#(String(repeating: "n", count: 17))", "topic": "t"}}"#,
                "tooLarge"
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "follow", "name": "f", "topic": "t", "from": "\#(String(repeating: "p", count: 17))"}}"#,
                "tooLarge"
            ),
            (
                #"{"v": 1, "op": "dispatch", "action": {"type": "publish", "topic": "t", "payload": "\#(String(repeating: "v", count: 33))"}}"#,
                "tooLarge"
            ),
            (#"{"v": 1, "op": "ping", "padding": "\#(String(repeating: " ", count: 600))"}"#, "tooLarge"),
        ]
        for (request, expected) in cases {
            let reply = try await controlRequest(endpoint, request)
            #expect(reply?["ok"] as? Bool == false, "\(request)")
            #expect(errorCode(reply) == expected, "\(request)")
            #expect(((reply?["error"] as? [String: Any])?["message"] as? String)?.isEmpty == false)
        }
        let ping = try await controlRequest(endpoint, #"{"v": 1, "id": "p1", "op": "ping"}"#)
        #expect(ping?["ok"] as? Bool == true)
        #expect(ping?["id"] as? String == "p1")
        #expect((ping?["result"] as? [String: Any])?["node"] as? String == "c1")
        #expect(node.state.feeds.isEmpty, "nothing was accepted from the bad requests")
        await node.stop()
    }

    @Test func dispatchStateKeepAndMetricsAnswer() async throws {
        let node = try startNode("c2")
        let endpoint = node.controlEndpoint
        let accepted = try await controlRequest(
            endpoint, #"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "eu.prices", "value": "42"}}"#)
        #expect((accepted?["result"] as? [String: Any])?["accepted"] as? Bool == true)
        #expect(await waitFor(node) { $0.feeds["eu.prices"]?.value == "42" })

        let state = try await controlRequest(endpoint, #"{"v": 1, "op": "state"}"#)
        let feeds = (state?["result"] as? [String: Any])?["feeds"] as? [String: Any]
        #expect((feeds?["eu.prices"] as? [String: Any])?["value"] as? String == "42")

        let keep = try await controlRequest(endpoint, #"{"v": 1, "op": "keep"}"#)
        let channels = ((keep?["result"] as? [String: Any])?["channels"] as? [[String: Any]]) ?? []
        let ids = Set(channels.compactMap { $0["id"] as? String })
        #expect(ids == ["pub", "membership", "feed[eu.prices]"])
        let feed = channels.first { $0["id"] as? String == "feed[eu.prices]" }
        #expect(feed?["delivery"] as? String == "throttle(100ms, latest)")
        #expect(feed?["broadcasting"] as? String == "onChange")

        let metrics = try await controlRequest(endpoint, #"{"v": 1, "op": "metrics"}"#)
        let result = metrics?["result"] as? [String: Any]
        #expect((result?["channels"] as? [String: Any])?["live"] as? Int == 3, "publisher, membership, the feed")
        #expect(((result?["process"] as? [String: Any])?["fds"] as? Int ?? 0) > 0)
        await node.stop()
    }

    @Test func feedsFollowsAndPeersBeyondTheirLimitsAreRefused() async throws {
        let node = try startNode("c4", limits: NodeLimits(maxFeeds: 2, maxFollows: 1, maxPeers: 1))
        let endpoint = node.controlEndpoint
        func dispatch(_ action: String) async throws -> String? {
            let reply = try await controlRequest(endpoint, #"{"v": 1, "op": "dispatch", "action": \#(action)}"#)
            return reply?["ok"] as? Bool == true ? "ok" : errorCode(reply)
        }
        #expect(try await dispatch(#"{"type": "set", "topic": "a", "value": "1"}"#) == "ok")
        #expect(try await dispatch(#"{"type": "set", "topic": "b", "value": "1"}"#) == "ok")
        #expect(await waitFor(node) { $0.feeds.count == 2 })
        #expect(try await dispatch(#"{"type": "set", "topic": "c", "value": "1"}"#) == "limitReached")
        #expect(try await dispatch(#"{"type": "set", "topic": "a", "value": "2"}"#) == "ok", "an existing feed can still change")
        #expect(try await dispatch(#"{"type": "follow", "name": "f", "topic": "x"}"#) == "ok")
        #expect(try await dispatch(#"{"type": "addPeer", "id": "p", "endpoint": "tcp://127.0.0.1:9"}"#) == "ok")
        // Queued before the first is reduced, the second may pass the endpoint's check: the
        // reducer refuses it then, and counts it.
        node.dispatch(.follow(name: "g", topic: "y", from: nil))
        node.dispatch(.addPeer(id: "q", endpoint: "tcp://127.0.0.1:9"))
        #expect(await waitFor(node) { $0.refused == 2 })
        #expect(node.state.follows.keys.sorted() == ["f"] && node.state.peers.keys.sorted() == ["p"])
        #expect(try await dispatch(#"{"type": "follow", "name": "h", "topic": "x"}"#) == "limitReached")
        #expect(try await dispatch(#"{"type": "addPeer", "id": "r", "endpoint": "tcp://127.0.0.1:9"}"#) == "limitReached")
        await node.stop()
    }

    @Test func aStoppedNodeNoLongerAnswers() async throws {
        let node = try startNode("c3")
        let endpoint = node.controlEndpoint
        await node.stop()
        // After stop the endpoint is closed: no reply within the timeout.
        let reply = try await controlRequest(endpoint, #"{"v": 1, "op": "ping"}"#, timeout: .milliseconds(300))
        #expect(reply == nil)
    }
}
