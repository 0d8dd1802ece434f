import Foundation
import NodeTestSupport
import SharedTestSupport
import Synchronization
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// `--log-format text|json`: what a line holds, and that hostile field values stay inside it.
@Suite struct NodeLoggerTests {
    /// Captures lines written by a logger with a fixed time.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func logger(_ format: LogFormat, level: NodeLogger.Level = .info) -> NodeLogger {
            NodeLogger(
                nodeID: "n1", level: level, format: format, sink: { line in self.lines.withLock { $0.append(line) } },
                clock: { "2026-11-29T12:00:00.123Z" })
        }
    }

    /// Values a peer or an operator can put in a topic, an endpoint or an error text.
    static let hostileValues: [String] = [
        "", " ", "plain", "two words", "a=b", "quote\"inside", "back\\slash", "\\\"", "line\none", "cr\rlf\n",
        "tab\there", "\u{0}nul", "bell\u{7}", "esc\u{1B}[31mred", "del\u{7F}", "c1\u{85}next", "sep\u{2028}para\u{2029}",
        "{\"level\":\"error\"}", "\nINFO  node=n9 event=forged", "é中文🙂", "\u{FEFF}bom", String(repeating: "x\n", count: 500),
    ]

    @Test func textLineHasTimeLevelNodeEventAndSortedFields() {
        let lines = Lines()
        lines.logger(.text).info("started", ["pub": "tcp://127.0.0.1:7101", "control": "tcp://127.0.0.1:7201"])
        #expect(
            lines.all == [
                "2026-11-29T12:00:00.123Z INFO  node=n1 event=started control=tcp://127.0.0.1:7201 pub=tcp://127.0.0.1:7101\n"
            ])
    }

    @Test func jsonLineIsOneObjectWithTimeLevelNodeEventAndFields() throws {
        let lines = Lines()
        let log = lines.logger(.json, level: .debug)
        log.warning("peer_gone", ["peer": "n2", "after_ms": "500"])
        log.debug("tick")
        #expect(
            lines.all == [
                #"{"time":"2026-11-29T12:00:00.123Z","level":"warning","node":"n1","event":"peer_gone","fields":{"after_ms":"500","peer":"n2"}}"#
                    + "\n",
                #"{"time":"2026-11-29T12:00:00.123Z","level":"debug","node":"n1","event":"tick","fields":{}}"# + "\n",
            ])
        for line in lines.all { _ = try Self.object(line) }
    }

    @Test func levelBelowTheThresholdWritesNothing() {
        let lines = Lines()
        let log = lines.logger(.json, level: .warning)
        log.info("quiet")
        log.debug("quieter")
        log.error("loud")
        #expect(lines.all.count == 1 && lines.all[0].contains(#""event":"loud""#))
    }

    /// Every hostile value, as a field value and as a key, comes back exactly from one JSON line.
    @Test(arguments: hostileValues)
    func jsonRoundTripsHostileStringsOnOneLine(value: String) throws {
        let lines = Lines()
        lines.logger(.json).error(value, [value: value, "error": value])
        let line = try #require(lines.all.first)
        #expect(Self.isOneLine(line))
        let object = try Self.object(line)
        #expect(object["event"] as? String == value)
        let fields = try #require(object["fields"] as? [String: String])
        #expect(fields[value] == value && fields["error"] == value)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    }

    /// A hostile value in text form stays one line and one quoted token, and reads back.
    @Test(arguments: hostileValues)
    func textKeepsHostileStringsInsideOneQuotedValue(value: String) throws {
        let lines = Lines()
        lines.logger(.text).error("receive_failed", ["error": value])
        let line = try #require(lines.all.first)
        #expect(Self.isOneLine(line))
        let prefix = "2026-11-29T12:00:00.123Z ERROR node=n1 event=receive_failed error="
        #expect(line.hasPrefix(prefix))
        let token = String(line.dropFirst(prefix.count).dropLast())
        #expect(Self.unquoteText(token) == value)
        #expect(!token.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    @Test func formatNamesParse() {
        #expect(LogFormat(name: "json") == .json && LogFormat(name: "TEXT") == .text && LogFormat(name: "xml") == nil)
    }

    @Test func commandLineTakesLogFormat() throws {
        let configuration = try #require(try NodeCommand.parse(["--id", "n1", "--log-format", "json"]).runConfiguration)
        #expect(configuration.logFormat == .json)
        let plain = try #require(try NodeCommand.parse(["--id", "n1"]).runConfiguration)
        #expect(plain.logFormat == .text)
        #expect(throws: NodeCommand.UsageError(message: "--log-format takes text or json (got 'yaml')")) {
            try NodeCommand.parse(["--id", "n1", "--log-format", "yaml"])
        }
    }

    /// The real binary: every line it writes on stderr with `--log-format json` is one JSON
    /// object naming the node, from `started` to `stopped`.
    @Test func rexnodeWritesJSONLinesFromStartToStop() async throws {
        let control = "tcp://127.0.0.1:\(try NodeCommandTests().freeLoopbackPort())"
        let process = Process()
        process.executableURL = NodeCommandTests.executable
        process.arguments = [
            "--id", "j1", "--pub", "tcp://127.0.0.1:*", "--control", control, "--membership", "tcp://127.0.0.1:*", "--log-format", "json",
        ]
        let log = Pipe()
        process.standardError = log
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let handle = log.fileHandleForReading
        let started = try await offPool { NodeCommandTests.readsLine(containing: #""event":"started""#, in: handle) }
        #expect(started, "logs started")
        // rexnode installs its SIGTERM handler just after it starts serving: a ping round trip
        // gives it that time, as in NodeCommandTests.
        let ping = try await controlRequest(control, #"{"v": 1, "op": "ping"}"#, timeout: Arrivals.safetyTimeout)
        #expect(ping?["ok"] as? Bool == true, "the node answered ping")
        process.terminate()
        let rest = try await offPool { String(decoding: handle.readDataToEndOfFile(), as: UTF8.self) }
        process.waitUntilExit()
        let lines = rest.split(separator: "\n", omittingEmptySubsequences: true)
        #expect(lines.contains { $0.contains(#""event":"stopped""#) })
        for line in lines {
            let object = try Self.object(String(line))
            #expect(object["node"] as? String == "j1" && object["time"] is String && object["level"] is String)
            #expect(object["event"] is String && object["fields"] is [String: Any])
        }
    }

    // MARK: helpers

    static func isOneLine(_ line: String) -> Bool {
        line.hasSuffix("\n") && !line.dropLast().contains { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
            && !line.dropLast().unicodeScalars.contains {
                $0 == "\n" || $0 == "\r" || $0 == "\u{2028}" || $0 == "\u{2029}" || $0 == "\u{85}"
            }
    }

    static func object(_ line: String) throws -> [String: Any] {
        let value = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(value as? [String: Any])
    }

    /// Reads a text-form value back: bare, or quoted with `\"`, `\\`, `\n`, `\r`, `\t`, `\u{…}`.
    static func unquoteText(_ token: String) -> String? {
        guard token.hasPrefix("\"") else { return token }
        guard token.count >= 2, token.hasSuffix("\"") else { return nil }
        var scalars = Array(token.unicodeScalars.dropFirst().dropLast())[...]
        var out = String.UnicodeScalarView()
        while let scalar = scalars.popFirst() {
            guard scalar == "\\" else { out.append(scalar); continue }
            switch scalars.popFirst() {
            case "\"": out.append("\"")
            case "\\": out.append("\\")
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "u":
                guard scalars.popFirst() == "{", let end = scalars.firstIndex(of: "}") else { return nil }
                guard let code = UInt32(String(String.UnicodeScalarView(scalars[..<end])), radix: 16),
                    let decoded = Unicode.Scalar(code)
                else { return nil }
                out.append(decoded)
                scalars = scalars[scalars.index(after: end)...]
            default: return nil
            }
        }
        return String(out)
    }
}
