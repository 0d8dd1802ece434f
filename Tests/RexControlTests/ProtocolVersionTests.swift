import RexCluster
import RexControl
import RexFeeds
import Testing

/// Only the JSON integer literal `1` is version 1, on either side of the wire.
@Suite struct ProtocolVersionTests {
    @Test(arguments: [
        (#"{"v": 1, "op": "ping"}"#, ProtocolVersion.Reading.current),
        (#"{"op": "ping", "v":1}"#, .current),
        (#" {"a": {"v": 2}, "b": ["v", "}"], "c": "\"v\": 3", "v": 1} "#, .current),
        (#"{"v": 2}"#, .unsupported(2)),
        (#"{"v": -1}"#, .unsupported(-1)),
        (#"{"v": 0}"#, .unsupported(0)),
        (#"{"v": 1.0}"#, .notAnInteger("1.0")),
        (#"{"v": 1e0}"#, .notAnInteger("1e0")),
        (#"{"v": 10e-1}"#, .notAnInteger("10e-1")),
        (#"{"v": -0}"#, .unsupported(0)),
        (#"{"v": true}"#, .notAnInteger("true")),
        (#"{"v": "1"}"#, .notAnInteger(#""1""#)),
        (#"{"v": [1]}"#, .notAnInteger("[1]")),
        (#"{"v": null}"#, .notAnInteger("null")),
        (#"{"v": 18446744073709551616}"#, .notAnInteger("18446744073709551616")),
        (#"{"op": "ping"}"#, .missing),
        (#"{"a": {"v": 1}}"#, .missing),
        (#"{"v": 1, "v": 1}"#, .repeated),
        (#"{"\u0076": 1.0}"#, .notAnInteger("1.0")),
        (#"{"v\u0000": 1.0, "v": 1}"#, .current),
        ("[1, 2]", .notAnObject),
        (#""v""#, .notAnObject),
        ("{", .notAnObject),
        (#"{"v": 1"#, .notAnObject),
        (#"{"v" 1}"#, .notAnObject),
        ("", .notAnObject),
    ])
    func readsTheRawMember(document: String, reading: ProtocolVersion.Reading) {
        #expect(ProtocolVersion.read(Array(document.utf8)) == reading, "\(document)")
    }

    /// No input traps the scan: unterminated strings, escapes at the very end, deep nesting.
    @Test func hostileTextNeverTraps() {
        for text in [#"{"v"#, #"{"\"#, #"{"v":"\"#, #"{"a":[[[[[["#, "{\"a\":" + String(repeating: "[", count: 100_000), #"{"a":"x\"#] {
            #expect(ProtocolVersion.read(Array(text.utf8)) == .notAnObject, "\(text.prefix(20))")
        }
    }
}
