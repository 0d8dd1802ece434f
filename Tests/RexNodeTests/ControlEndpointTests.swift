import Foundation
import Testing
import RexNode

/// The control endpoint answers every request; bad ones get error replies and the node lives on.
@Suite(.serialized) struct ControlEndpointTests {
    func errorCode(_ reply: [String: Any]?) -> String? {
        (reply?["error"] as? [String: Any])?["code"] as? String
    }

    @Test func malformedRequestsGetErrorRepliesAndTheNodeKeepsRunning() async throws {
        let node = try startNode("c1")
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
        ]
        for (request, expected) in cases {
            let reply = try controlRequest(endpoint, request)
            #expect(reply?["ok"] as? Bool == false, "\(request)")
            #expect(errorCode(reply) == expected, "\(request)")
            #expect(((reply?["error"] as? [String: Any])?["message"] as? String)?.isEmpty == false)
        }
        let ping = try controlRequest(endpoint, #"{"v": 1, "id": "p1", "op": "ping"}"#)
        #expect(ping?["ok"] as? Bool == true)
        #expect(ping?["id"] as? String == "p1")
        #expect((ping?["result"] as? [String: Any])?["node"] as? String == "c1")
        #expect(node.state.feeds.isEmpty, "nothing was accepted from the bad requests")
        await node.stop()
    }

    @Test func dispatchStateKeepAndMetricsAnswer() async throws {
        let node = try startNode("c2")
        let endpoint = node.controlEndpoint
        let accepted = try controlRequest(endpoint, #"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": "eu.prices", "value": "42"}}"#)
        #expect((accepted?["result"] as? [String: Any])?["accepted"] as? Bool == true)
        #expect(await eventually { node.state.feeds["eu.prices"]?.value == "42" })

        let state = try controlRequest(endpoint, #"{"v": 1, "op": "state"}"#)
        let feeds = (state?["result"] as? [String: Any])?["feeds"] as? [String: Any]
        #expect((feeds?["eu.prices"] as? [String: Any])?["value"] as? String == "42")

        let keep = try controlRequest(endpoint, #"{"v": 1, "op": "keep"}"#)
        let channels = ((keep?["result"] as? [String: Any])?["channels"] as? [[String: Any]]) ?? []
        let ids = Set(channels.compactMap { $0["id"] as? String })
        #expect(ids == ["pub", "heartbeat", "membership", "feed[eu.prices]"])
        let feed = channels.first { $0["id"] as? String == "feed[eu.prices]" }
        #expect(feed?["delivery"] as? String == "throttle(100ms, latest)")
        #expect(feed?["broadcasting"] as? String == "onChange")

        let metrics = try controlRequest(endpoint, #"{"v": 1, "op": "metrics"}"#)
        let result = metrics?["result"] as? [String: Any]
        #expect((result?["channels"] as? [String: Any])?["live"] as? Int == 4)
        #expect(((result?["process"] as? [String: Any])?["fds"] as? Int ?? 0) > 0)
        await node.stop()
    }

    @Test func aStoppedNodeNoLongerAnswers() async throws {
        let node = try startNode("c3")
        let endpoint = node.controlEndpoint
        await node.stop()
        // After stop the endpoint is closed: no reply within the timeout.
        let reply = try controlRequest(endpoint, #"{"v": 1, "op": "ping"}"#, timeout: .milliseconds(300))
        #expect(reply == nil)
    }
}
