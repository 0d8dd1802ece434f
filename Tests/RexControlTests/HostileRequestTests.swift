import Foundation
import RexCluster
import RexControl
import RexFeeds
import RexNode
import Testing

/// Requests built to break a JSON stack: deep nesting, invalid UTF-8, numbers no type holds,
/// keys spelled with escapes. Each gets an error reply (or a reply), and the node lives on.
@Suite(.serialized) struct HostileRequestTests {
    @Test func everyHostileRequestGetsAReplyAndTheNodeLivesOn() async throws {
        let node = try startQuietNode("h1")
        let client = try RawControlClient(node.controlEndpoint)
        defer { client.close() }
        let deep = String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)
        let cases: [(request: [UInt8], code: String?)] = [
            (Array(#"{"v": 1, "id": \#(deep), "op": "ping"}"#.utf8), "badRequest"),
            (Array(#"{"v": 1, "op": "dispatch", "action": {"type": "set", "topic": \#(deep), "value": "x"}}"#.utf8), "badRequest"),
            (Array(#"{"v": 1, "op": "ping", "x": "#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8), "badRequest"),
            (Array(#"{"v": 1, "id": 1e999, "op": "ping"}"#.utf8), "badRequest"),
            (Array(#"{"\u0076": 1.0, "op": "ping"}"#.utf8), "badRequest"),
            (Array(#"{"v": 1, "\u0076": 1, "op": "ping"}"#.utf8), "badRequest"),
            (Array(#"{"v": 1, "op": "watch", "documents": ["state"], "leaseMs": 1e999}"#.utf8), "badRequest"),
            (Array(#"{"v": 1, "op": "renew", "watch": \#(deep)}"#.utf8), "badRequest"),
            (Array(#"{"v": 1, "id": "\ud800", "op": "ping"}"#.utf8), "badRequest"),
        ]
        for (request, code) in cases {
            let reply = try #require(try await client.request(String(decoding: request, as: UTF8.self)), "no reply")
            let decoded = ReceivedReply(Array(reply.utf8)).result(JSONValue.self)
            if let code {
                guard case .failure(.refused(let error)) = decoded else {
                    Issue.record("\(String(decoding: request.prefix(60), as: UTF8.self)): \(reply.prefix(200))")
                    continue
                }
                #expect(error.code.rawValue == code, "\(String(decoding: request.prefix(60), as: UTF8.self)): \(error)")
            }
        }
        let ping = try #require(try await client.request(#"{"v": 1, "op": "ping"}"#))
        #expect(ping.contains(#""ok":true"#))
        await node.stop()
    }
}
