import Testing
import ZMQ

@testable import rexctl

/// A reply is protocol v1 only when its `"v"` is the JSON integer literal `1`.
@Suite struct ProtocolVersionTests {
    @Test(arguments: [
        (#"{"v": 1, "ok": true, "result": {"a": 1}}"#, nil),
        (#"{"v": 1.0, "ok": true, "result": {}}"#, "protocol version 1.0"),
        (#"{"v": 1e0, "ok": true, "result": {}}"#, "protocol version 1e0"),
        (#"{"v": 10e-1, "ok": true, "result": {}}"#, "protocol version 10e-1"),
        (#"{"v": true, "ok": true, "result": {}}"#, "protocol version true"),
        (#"{"v": "1", "ok": true, "result": {}}"#, #"protocol version "1""#),
        (#"{"v": [1], "ok": true, "result": {}}"#, "protocol version [1]"),
        (#"{"v": 2, "ok": true, "result": {}}"#, "protocol version 2"),
        (#"{"ok": true, "result": {}}"#, #"no "v" member"#),
        (#"{"v": null, "ok": true, "result": {}}"#, "protocol version null"),
    ] as [(String, String?)])
    func onlyTheIntegerOneIsVersionOne(reply: String, problem: String?) throws {
        let context = try ZMQContext()
        defer { try? context.terminate() }
        let node = NodeAddress(id: "n1", control: "inproc://rexctl-protocol-version-test")
        let client = try NodeClient(context: context, node: node)
        defer { client.close() }
        let result = try #require(client.decode(Array(reply.utf8), expecting: "r-1"))
        switch (result, problem) {
        case (.success(let value), nil):
            #expect(value == .object(["a": .number("1")]))
        case (.failure(let error), let problem?):
            #expect(error.kind == .badReply(problem))
        default:
            Issue.record("\(reply): \(result)")
        }
    }

    /// The load generator reads its pipelined replies through the same check.
    @Test func loadChurnRefusesAReplyOfAnotherVersion() async throws {
        let reply: @Sendable (String, String) -> String = { _, id in
            CannedNode.success(id: id, result: #"{"accepted": true}"#, version: "1.0")
        }
        let first = try CannedNode(reply: reply)
        defer { first.stop() }
        let second = try CannedNode(reply: reply)
        defer { second.stop() }
        let result = await cli(["load", "churn", "--duration", "1s", "--node", "n1=\(first.endpoint)",
                                "--node", "n2=\(second.endpoint)", "--timeout", "1s"])
        #expect(result.code == 2, "\(result)")
        #expect(result.stderr.contains("(protocol version 1.0)"), "\(result.stderr)")
    }
}
