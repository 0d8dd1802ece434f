import Foundation
import NodeTestSupport
import RexCluster
import RexControl
import RexFeeds
import RexNode
import ZMQ

/// Starts a node on free loopback ports whose state moves only when a test acts: no peers (so
/// no membership report moves a peer's status) and a short follow settle.
func startQuietNode(_ id: String, limits: NodeLimits = NodeLimits(), logger: NodeLogger? = nil) throws -> Node {
    try Node.start(
        NodeConfiguration(
            id: id, pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
            settings: NodeSettings(feedIntervalMs: 100, followSettleMs: 10, limits: limits),
            logLevel: .error),
        logger: logger)
}

/// A DEALER connected to a node's control endpoint, sending raw request text and returning
/// raw reply text: what a script sees on the wire.
final class RawControlClient: @unchecked Sendable {
    // @unchecked Sendable: a test uses its client from one thread at a time (each call runs
    // inside one `offPool` thread and the test awaits it before the next call).
    let context: ZMQContext
    let socket: ZMQSocket

    init(_ endpoint: String) throws {
        context = try ZMQContext()
        socket = try context.socket(.dealer)
        try socket.setOption(.linger, .zero)
        try socket.connect(endpoint)
    }

    /// Sends `request` and returns the last frame of the next reply as text (nil on timeout).
    func request(_ request: String, timeout: Duration = .seconds(5)) async throws -> String? {
        try await offPool { [self] in
            _ = try socket.send(request)
            return try receive(timeout: timeout)
        }
    }

    /// Sends `request` without waiting.
    func send(_ request: String) throws {
        _ = try socket.send(request)
    }

    /// The next reply's last frame as text, or nil when none arrives within `timeout`.
    func next(timeout: Duration = .seconds(5)) async throws -> String? {
        try await offPool { [self] in try receive(timeout: timeout) }
    }

    private func receive(timeout: Duration) throws -> String? {
        let poller = ZMQPoller(capacity: 1)
        try poller.register(socket)
        let deadline = ContinuousClock.now + timeout
        while true {
            if let frames = try socket.tryReceiveMultipart() {
                return String(decoding: frames.last ?? [], as: UTF8.self)
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            if remaining <= .zero { return nil }
            try poller.poll(timeout: remaining)
        }
    }

    func close() {
        socket.close()
        try? context.terminate()
    }
}

/// Replaces every number after one of `keys` (`"sinceMs":1200` → `"sinceMs":#`): the values
/// that move with time, leaving the bytes of everything else (keys, order, nulls, strings) to
/// compare exactly.
func masking(_ keys: [String], in text: String) -> String {
    var result = text
    for key in keys {
        result = result.replacingOccurrences(
            of: "\"\(key)\":-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?", with: "\"\(key)\":#", options: .regularExpression)
    }
    return result
}

/// Replaces every number in `text` with `#`.
func maskingNumbers(in text: String) -> String {
    text.replacingOccurrences(of: "(?<=[:\\[,])-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?", with: "#", options: .regularExpression)
}

/// An endpoint as the node's JSON writes it (`/` escaped as `\/`).
func escapedSlashes(_ text: String) -> String {
    text.replacingOccurrences(of: "/", with: "\\/")
}

/// While goldens are being (re)captured (`GOLDEN_CAPTURE=file`): appends `value` to that file
/// as a Swift raw string literal, control and invisible characters as `\#u{…}` escapes.
func captureGolden(_ label: String, _ value: String?) {
    guard let path = ProcessInfo.processInfo.environment["GOLDEN_CAPTURE"] else { return }
    var literal = ""
    for scalar in (value ?? "<nil>").unicodeScalars {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
            literal += "\\#u{\(String(scalar.value, radix: 16))}"
        default:
            literal.unicodeScalars.append(scalar)
        }
    }
    let line = "// \(label)\n#\"\(literal)\"#,\n"
    if let handle = FileHandle(forWritingAtPath: path) {
        handle.seekToEndOfFile()
        handle.write(Data(line.utf8))
        try? handle.close()
    } else {
        _ = FileManager.default.createFile(atPath: path, contents: Data(line.utf8))
    }
}
