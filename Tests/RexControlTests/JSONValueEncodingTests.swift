import RexCluster
import RexControl
import RexFeeds
import Testing

/// `JSONValue(encoding:)` builds the tree the codec's text would decode to, without the text.
@Suite struct JSONValueEncodingTests {
    @Test func treesEqualWhatTheCodecWrites() throws {
        var state = NodeState(id: "n1")
        state.feeds["a/b"] = Feed(value: "\u{1B}é")
        var follow = Follow(topic: "t", from: "n2")
        follow.senders["n2"] = SenderSequences(epoch: .max, lastSequence: ["t": .max], heardAt: 3)
        state.follows["f"] = follow
        let keep = KeepDocument(
            channels: [
                KeepDocument.Channel(
                    id: "pub", lifetime: .ephemeral, resetKey: nil, settleMs: 50, broadcasting: "nothing", delivery: "immediate",
                    status: .live,
                    supervised: true, sinceMs: -5, ageMs: .max, opens: 1, recreates: 0, deliveries: 0, drops: 0,
                    history: [ChannelEvent(atMs: 1, .recreated(from: nil, to: "x")), ChannelEvent(atMs: 2, .dropped(reason: "r"))])
            ],
            counters: .init(
                cycles: 1, changedCycles: 1, opens: 1, cancels: 0, recreates: 0, deliveries: 0, drops: 0, live: 1,
                lastMs: 0.04, maxMs: 0.31))
        func viaText(_ document: some Encodable) throws -> JSONValue {
            try ControlCodec.decode(JSONValue.self, from: try ControlCodec.encode(document))
        }
        #expect(try JSONValue(encoding: state) == viaText(state))
        #expect(try JSONValue(encoding: keep) == viaText(keep))
        #expect(try JSONValue(encoding: keep)["channels"] == .array([try viaText(keep.channels[0])]))
        #expect(
            try JSONValue(
                encoding: DispatchDocument(
                    accepted: true, action: .object(["type": .string("follow"), "name": .string("f"), "topic": .string("t")])))
                == .object([
                    "accepted": .bool(true), "action": .object(["type": .string("follow"), "name": .string("f"), "topic": .string("t")]),
                ]))
        #expect(try JSONValue(encoding: 50.0) == .number("50"))
        #expect(try JSONValue(encoding: 1e16) == .number("1e+16"), "the codec's text, which reading it back would make 10000000000000000")
        #expect(throws: EncodingError.self) { try JSONValue(encoding: Double.infinity) }
    }

    /// A large state becomes a tree in about the time encoding it takes (reading the codec's
    /// text back as a tree took forty times as long).
    @Test func largeStatesConvertQuickly() throws {
        var state = NodeState(id: "n")
        for index in 0..<5_000 { state.follows["f\(index)"] = Follow(topic: "t\(index)") }
        let clock = ContinuousClock()
        let encoding = try clock.measure { _ = try ControlCodec.encode(state) }
        let tree = try clock.measure { _ = try JSONValue(encoding: state) }
        #expect(tree < encoding * 10, "tree \(tree), encoding \(encoding)")
    }
}
