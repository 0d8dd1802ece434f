import RexCluster
import RexControl
import RexFeeds
import Testing

/// How a node reads requests: the id first, then the version, then what the op needs.
@Suite struct RequestTests {
    func read(_ text: String) -> (id: JSONValue, request: Result<ControlRequest<JSONValue>, ControlError>) {
        ControlRequest<JSONValue>.read(Array(text.utf8))
    }

    @Test func idIsEchoedWhateverElseIsWrong() {
        let (id, request) = read(#"{"v": 2, "id": {"k": [1, 2.5, "x"]}, "op": "nope"}"#)
        #expect(id == .object(["k": .array([.number(1), .number("2.5"), .string("x")])]))
        #expect(request == .failure(ControlError(.badVersion, "protocol version 2 is not supported (this node speaks 1)")))
        #expect(read("nonsense").id == .null)
        #expect(read(#"{"v": 1, "op": "ping"}"#).id == .null)
    }

    @Test func requestsEncodeWithSortedKeysAndTheIntegerVersion() throws {
        let request = ControlRequest<JSONValue>(
            .dispatch, id: .string("r-1"), action: .object(["type": .string("unset"), "topic": .string("a")]))
        #expect(
            String(decoding: try ControlCodec.encode(request), as: UTF8.self)
                == #"{"action":{"topic":"a","type":"unset"},"id":"r-1","op":"dispatch","v":1}"#)
        let raw = ControlRequest<JSONValue>(.dispatch, id: .string("r-2"), action: .object(["type": .string("explode")]))
        #expect(
            String(decoding: try ControlCodec.encode(raw), as: UTF8.self)
                == #"{"action":{"type":"explode"},"id":"r-2","op":"dispatch","v":1}"#)
        let (_, decoded) = ControlRequest<JSONValue>.read(try ControlCodec.encode(request))
        #expect(try decoded.get().action == .object(["type": .string("unset"), "topic": .string("a")]))
    }

    @Test func jsonValueKeepsLargeIntegersAndWritesNumbersAsTheCodecDoes() throws {
        let value = try ControlCodec.decode(
            JSONValue.self, from: Array("[18446744073709551615, -9223372036854775808, 7.0, 1e300, 0.04, true, null]".utf8))
        #expect(
            value
                == .array([
                    .number("18446744073709551615"), .number("-9223372036854775808"), .number(7), .number("1e+300"),
                    .number("0.04"), .bool(true), .null,
                ]))
        #expect(
            String(decoding: try ControlCodec.encode(value), as: UTF8.self)
                == "[18446744073709551615,-9223372036854775808,7,1e+300,0.04,true,null]")
        #expect(JSONValue.object(["b": .array([]), "a": .string("x/y")]).displayText == #"{"a":"x\/y","b":[]}"#)
    }
}
