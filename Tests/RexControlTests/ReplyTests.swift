import RexCluster
import RexControl
import RexFeeds
import Testing

/// How a client reads replies, and how a node writes them.
@Suite struct ReplyTests {
    func reply(_ text: String) -> ReceivedReply { ReceivedReply(Array(text.utf8)) }

    @Test(
        arguments: [
            (#"{"v": 1, "ok": true, "result": {"renewed": 2}}"#, nil),
            (#"{"v": 1.0, "ok": true, "result": {}}"#, "protocol version 1.0"),
            (#"{"v": 1e0, "ok": true, "result": {}}"#, "protocol version 1e0"),
            (#"{"v": true, "ok": true, "result": {}}"#, "protocol version true"),
            (#"{"v": "1", "ok": true, "result": {}}"#, #"protocol version "1""#),
            (#"{"v": 2, "ok": true, "result": {}}"#, "protocol version 2"),
            (#"{"ok": true, "result": {}}"#, #"no "v" member"#),
            (#"{"v": 1, "result": {}}"#, #"no "ok" member"#),
            (#"{"v": 1, "ok": "yes", "result": {}}"#, #"no "ok" member"#),
            (#"{"v": 1, "ok": true}"#, #"no "result" member"#),
            (#"{"v": 1, "ok": true, "result": {"renewed": "2"}}"#, "its result is not a RenewDocument: field 'result.renewed' is not Int"),
            (#"{"v": 1, "ok": true, "result": {"renewed": 1e999}}"#, "its result is not a RenewDocument: not valid JSON"),
            ("[1]", "not a JSON object"),
            ("{", "not JSON"),
        ] as [(String, String?)])
    func judgesEveryReplyTheSameWay(text: String, problem: String?) {
        switch (reply(text).result(RenewDocument.self), problem) {
        case (.success(let document), nil): #expect(document == RenewDocument(renewed: 2))
        case (.failure(.unreadable(let found)), let problem?): #expect(found == problem)
        case (let outcome, _): Issue.record("\(text): \(outcome)")
        }
    }

    @Test func errorRepliesCarryTheNodesCodeAndMessageEvenWhenMalformed() {
        #expect(
            reply(#"{"v": 1, "id": "x", "ok": false, "error": {"code": "badAction", "message": "m"}}"#).result(JSONValue.self)
                == .failure(.refused(ControlError(.badAction, "m"))))
        #expect(
            reply(#"{"v": 1, "ok": false, "error": {"code": 5}}"#).result(JSONValue.self)
                == .failure(.refused(ControlError(.init(rawValue: "unknown"), "(no message)"))))
        #expect(reply(#"{"v": 1, "id": "x", "ok": false}"#).id == .string("x"))
    }

    @Test func repliesWriteIdOkAndVersionInSortedOrder() throws {
        let success = ControlReply(id: .null, .success(RenewDocument(renewed: 1)))
        #expect(String(decoding: try ControlCodec.encode(success), as: UTF8.self) == #"{"id":null,"ok":true,"result":{"renewed":1},"v":1}"#)
        let failure = ControlReply<JSONValue>.refusing(id: .number(7), ControlError(.tooLarge, "big"))
        #expect(
            String(decoding: try ControlCodec.encode(failure), as: UTF8.self)
                == #"{"error":{"code":"tooLarge","message":"big"},"id":7,"ok":false,"v":1}"#)
    }

    /// A watch push assembled from documents encoded once is exactly the typed reply's encoding.
    @Test func watchPushesEqualTheTypedReply() throws {
        var state = NodeState(id: "n1")
        state.feeds["a/b"] = Feed(value: "\u{1B}é")
        let keep = KeepDocument(
            channels: [
                KeepDocument.Channel(
                    id: "pub", lifetime: .permanent, broadcasting: "nothing", delivery: "immediate", status: .live, supervised: true,
                    sinceMs: 5, ageMs: 10, opens: 1, recreates: 0, deliveries: 0, drops: 0,
                    history: [ChannelEvent(atMs: 1, .recreated(from: nil, to: "x"))])
            ],
            counters: .init(
                cycles: 1, changedCycles: 1, opens: 1, cancels: 0, recreates: 0, deliveries: 0, drops: 0, live: 1,
                lastMs: 0.04, maxMs: 0.125))
        for (keep, state) in [(keep, state), (nil, state), (keep, nil), (nil, nil)] as [(KeepDocument?, NodeState?)] {
            for id in [JSONValue.string("w-1"), .null, .object(["a": .array([.number(1)])])] {
                let typed = try ControlCodec.encode(
                    ControlReply(id: id, .success(WatchDocument(sequence: 3, leaseMs: 10_000, keep: keep, state: state))))
                let push = try WatchPush(
                    id: id, sequence: 3, leaseMs: 10_000, keep: keep.map(WatchPush.Encoded.init),
                    state: state.map(WatchPush.Encoded.init)
                ).bytes()
                #expect(String(decoding: push, as: UTF8.self) == String(decoding: typed, as: UTF8.self))
            }
        }
        #expect(String(decoding: try ControlCodec.encode(keep), as: UTF8.self).contains(#""resetKey":null,"settleMs":null"#))
    }
}
