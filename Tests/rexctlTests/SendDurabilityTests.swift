import Testing

/// `rexctl send` says how durable an accepted action is in its plain output too, not only in
/// `-o json`: a node with a data directory answers `durability` `batch` or `none`; a node
/// without one leaves it out, and so does the line.
@Suite struct SendDurabilityTests {
    private static let action = #"{"type": "set", "topic": "a", "value": "1"}"#

    private func node(durability: String?) throws -> CannedNode {
        let member = durability.map { #", "durability": "\#($0)""# } ?? ""
        return try CannedNode { _, id in
            CannedNode.success(id: id, result: #"{"accepted": true, "action": \#(SendDurabilityTests.action)\#(member)}"#)
        }
    }

    @Test func theLineSaysTheMode() async throws {
        for mode in ["batch", "none"] {
            let node = try node(durability: mode)
            defer { node.stop() }
            let result = await cli(["send", "n1", "set", "a", "1", "--node", "n1=\(node.endpoint)", "--timeout", "2s"])
            #expect(result.code == 0, "\(result)")
            #expect(result.stdout == #"n1 accepted {"topic":"a","type":"set","value":"1"} (durability: \#(mode))"# + "\n")
        }
    }

    @Test func aNodeWithoutADataDirectoryGetsTheLineAsBefore() async throws {
        let node = try node(durability: nil)
        defer { node.stop() }
        let result = await cli(["send", "n1", "set", "a", "1", "--node", "n1=\(node.endpoint)", "--timeout", "2s"])
        #expect(result.stdout == #"n1 accepted {"topic":"a","type":"set","value":"1"}"# + "\n")
    }

    @Test func theRepeatedSummarySaysItToo() async throws {
        let node = try node(durability: "batch")
        defer { node.stop() }
        let plain = await cli(["send", "n1", "set", "a", "1", "--count", "3", "--node", "n1=\(node.endpoint)", "--timeout", "2s"])
        #expect(plain.code == 0, "\(plain)")
        #expect(
            plain.stdout.hasPrefix("n1 accepted 3/3 actions in ") && plain.stdout.hasSuffix("; durability: batch)\n"), "\(plain.stdout)")
        let json = await cli([
            "send", "n1", "set", "a", "1", "--count", "3", "-o", "json", "--node", "n1=\(node.endpoint)", "--timeout", "2s",
        ])
        #expect(json.stdout.hasSuffix(#","durability":"batch"}"# + "\n"), "\(json.stdout)")
    }
}
