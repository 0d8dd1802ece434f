import Testing

@testable import rexctl

/// A reply is protocol v1 only when its `"v"` is the JSON integer literal `1` (RexControl's
/// `ReceivedReply` judges every reply; its own tests cover each form).
@Suite(.serialized) struct ProtocolVersionTests {
    static let ping = #"{"control":"c","node":"n1","pid":1,"pub":"p","uptimeMs":5}"#

    @Test(
        arguments: [
            ("1", nil),
            ("1.0", "protocol version 1.0"),
            ("1e0", "protocol version 1e0"),
            ("10e-1", "protocol version 10e-1"),
            ("true", "protocol version true"),
            (#""1""#, #"protocol version "1""#),
            ("[1]", "protocol version [1]"),
            ("2", "protocol version 2"),
            ("null", "protocol version null"),
        ] as [(String, String?)])
    func onlyTheIntegerOneIsVersionOne(version: String, problem: String?) async throws {
        let node = try CannedNode { _, id in CannedNode.success(id: id, result: ProtocolVersionTests.ping, version: version) }
        defer { node.stop() }
        let result = await cli(["nodes", "--node", "n1=\(node.endpoint)", "--timeout", "1s"])
        if let problem {
            #expect(result.code == 2, "\(result)")
            #expect(result.stderr.contains("sent a reply rexctl cannot read (\(problem))"), "\(result.stderr)")
        } else {
            #expect(result.code == 0, "\(result)")
        }
    }

    @Test func aReplyWithoutVersionIsRefused() async throws {
        let node = try CannedNode { _, id in #"{"id":"\#(id)","ok":true,"result":\#(ProtocolVersionTests.ping)}"# }
        defer { node.stop() }
        let result = await cli(["nodes", "--node", "n1=\(node.endpoint)", "--timeout", "1s"])
        #expect(result.code == 2)
        #expect(result.stderr.contains(#"(no "v" member)"#), "\(result.stderr)")
    }

    /// The load generator reads its pipelined replies through the same check.
    @Test func loadChurnRefusesAReplyOfAnotherVersion() async throws {
        let reply: @Sendable (String, String) -> String = { _, id in
            CannedNode.success(id: id, result: #"{"accepted": true, "action": {"type": "unset", "topic": "t"}}"#, version: "1.0")
        }
        let first = try CannedNode(reply: reply)
        defer { first.stop() }
        let second = try CannedNode(reply: reply)
        defer { second.stop() }
        let result = await cli([
            "load", "churn", "--duration", "1s", "--node", "n1=\(first.endpoint)",
            "--node", "n2=\(second.endpoint)", "--timeout", "1s",
        ])
        #expect(result.code == 2, "\(result)")
        #expect(result.stderr.contains("(protocol version 1.0)"), "\(result.stderr)")
    }
}
