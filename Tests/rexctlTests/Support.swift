import Foundation
import RexCluster
import RexControl
import RexFeeds
import Synchronization
import Testing
import ZMQ

@testable import rexctl

/// What one in-process run of rexctl produced.
struct RunResult: Sendable, CustomStringConvertible {
    var code: Int32
    var stdout: String
    var stderr: String
    var elapsed: Duration

    var description: String { "exit \(code)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// An environment with no variables and a working directory without a cluster file.
let emptyEnvironment = RexCtlEnvironment(variables: [:], currentDirectory: "/nonexistent-rexctl-test")

/// Runs `rexctl` with `arguments` in-process, on a thread of its own.
///
/// rexctl blocks (sockets, polls, sleeps); running it on a plain thread keeps the test's
/// cooperative threads free, so tests running in parallel (on 2 cores) are never starved.
func cli(_ arguments: [String], environment: RexCtlEnvironment = emptyEnvironment) async -> RunResult {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: runBlocking(arguments, environment: environment))
        }
        thread.start()
    }
}

/// Runs `rexctl` on the calling thread.
func runBlocking(_ arguments: [String], environment: RexCtlEnvironment) -> RunResult {
    let stdout = BufferOutput()
    let stderr = BufferOutput()
    let clock = ContinuousClock()
    let start = clock.now
    let code = RexCtl.main(arguments: arguments, environment: environment, stdout: stdout, stderr: stderr)
    return RunResult(code: code, stdout: stdout.text, stderr: stderr.text, elapsed: clock.now - start)
}

/// Expects `result` to have ended at its deadline on rexctl's own clock: not before `deadline`
/// (less 10 ms of rounding to whole milliseconds), and before `alternative`, what the behaviour
/// the test rules out would have taken (the default timeout used instead of `--timeout`, one
/// timeout per node, a request timeout past the deadline). rexctl's waits are `zmq_poll`s on the
/// wall clock, with no clock to inject: the bound sits in the gap between the two, seconds wide,
/// rather than on how fast the run went.
func expectEndedAtDeadline(
    _ result: RunResult, _ deadline: Duration, before alternative: Duration, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(result.elapsed >= deadline - .milliseconds(10), "ended before its deadline: \(result.elapsed)", sourceLocation: sourceLocation)
    #expect(result.elapsed < alternative, "ended at \(result.elapsed), not before \(alternative)", sourceLocation: sourceLocation)
}

/// Runs `rexctl` with `arguments` split on spaces.
func cli(_ line: String, environment: RexCtlEnvironment = emptyEnvironment) async -> RunResult {
    await cli(line.split(separator: " ").map(String.init), environment: environment)
}

/// A loopback endpoint nobody listens on, and nobody can: its port stays bound (never
/// listening) for the rest of the test process, so connecting is refused and no socket of a
/// test running in parallel can be given the same port and receive what was meant for nobody.
func unusedLoopbackEndpoint() throws -> String {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
            bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
        }
    }
    guard bound else {
        let code = errno
        close(descriptor)
        throw POSIXError(.init(rawValue: code) ?? .EIO)
    }
    reservedPorts.withLock { $0.append(descriptor) }
    return "tcp://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
}

/// The descriptors that keep the ports of ``unusedLoopbackEndpoint()`` taken until the process ends.
private let reservedPorts = Mutex<[Int32]>([])

/// A ROUTER that only listens, to prove that rexctl sent nothing. Never answers.
final class SilentListener {
    let context: ZMQContext
    let socket: ZMQSocket
    let endpoint: String

    init() throws {
        context = try ZMQContext()
        socket = try context.socket(.router)
        try socket.bind("tcp://127.0.0.1:*")
        endpoint = try #require(try socket.lastEndpoint)
    }

    /// Every message that arrives within `window` (last frames as text).
    func received(within window: Duration) throws -> [String] {
        // Blocks for `window`; fine for the few short windows the tests use.
        let poller = ZMQPoller()
        try poller.register(socket)
        let deadline = ContinuousClock.now + window
        var messages: [String] = []
        while ContinuousClock.now < deadline {
            _ = try poller.poll(timeout: ContinuousClock.now.duration(to: deadline))
            while let frames = try socket.tryReceiveMultipart() {
                messages.append(String(decoding: frames.last ?? [], as: UTF8.self))
            }
        }
        return messages
    }

    func close() {
        socket.close()
        try? context.terminate()
    }
}

/// A temporary directory removed by `cleanup()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "rexctl-tests-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func write(_ relativePath: String, _ text: String) throws {
        let url = URL(fileURLWithPath: path + "/" + relativePath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// A fake node on loopback that answers every control request with a reply of the test's
/// choosing, to play a hostile node (odd protocol versions, control characters, absurd numbers).
///
/// Its ROUTER lives on a thread of its own (the socket never leaves it); ``stop()`` ends it.
final class CannedNode: Sendable {
    let endpoint: String
    private let context: ZMQContext
    private let control = Control()

    /// - Parameter reply: the reply document's text for a request's `op` and `id`.
    init(reply: @escaping @Sendable (_ operation: String, _ id: String) -> String) throws {
        let context = try ZMQContext()
        self.context = context
        let bound = Mutex<Result<String, any Error>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let control = self.control
        let thread = Thread {
            defer { control.finished.signal() }
            let socket: ZMQSocket
            do {
                socket = try context.socket(.router)
                try socket.setOption(.linger, .zero)
                try socket.bind("tcp://127.0.0.1:*")
                bound.withLock { $0 = .success((try? socket.lastEndpoint) ?? "") }
            } catch {
                bound.withLock { $0 = .failure(error) }
                ready.signal()
                return
            }
            ready.signal()
            defer { socket.close() }
            let poller = ZMQPoller()
            _ = try? poller.register(socket)
            while !control.stopRequested.withLock({ $0 }) {
                _ = try? poller.poll(timeout: .milliseconds(20))
                while let frames = try? socket.tryReceiveMultipart(), let request = frames.last {
                    let document = try? ControlCodec.decode(JSONValue.self, from: request)
                    let text = reply(document?["op"]?.stringValue ?? "", document?["id"]?.stringValue ?? "")
                    _ = try? socket.sendMultipart(frames.dropLast() + [Array(text.utf8)])
                }
            }
        }
        thread.start()
        ready.wait()
        endpoint = try bound.withLock { $0! }.get()
    }

    /// A success reply `{"v": <version>, "id": …, "ok": true, "result": <result>}`.
    static func success(id: String, result: String, version: String = "1") -> String {
        #"{"v":\#(version),"id":"\#(id)","ok":true,"result":\#(result)}"#
    }

    func stop() {
        control.stopRequested.withLock { $0 = true }
        control.finished.wait()
        try? context.terminate()
    }

    /// What the test and the node's thread share.
    private final class Control: Sendable {
        let stopRequested = Mutex(false)
        let finished = DispatchSemaphore(value: 0)
    }
}

/// A document from its JSON text (as a node would send it), through the protocol's codec.
func document<Document: Decodable>(_ type: Document.Type, _ text: String) throws -> Document {
    try ControlCodec.decode(type, from: Array(text.utf8))
}

/// A metrics document with every counter 0 but those given.
func metricsDocument(
    histogram: [(edge: Int, count: Int)] = [], opens: Int = 0, cancels: Int = 0, live: Int = 0,
    liveByKind: [String: Int]? = nil, depth: Int = 0, fds: Int = 0
) -> MetricsDocument {
    MetricsDocument(
        uptimeMs: 0,
        reconcile: .init(
            cycles: 0, changedCycles: 0, lastMs: 0, maxMs: 0, buildMs: 0, diffMs: 0, p50Ms: 0, p99Ms: 0,
            histogram: histogram.map { .init(upperEdgeNanoseconds: $0.edge, count: $0.count) }),
        channels: .init(opens: opens, cancels: cancels, recreates: 0, live: live, liveByKind: liveByKind),
        messages: .init(
            published: 0, received: 0, malformed: 0, oversized: 0, gaps: 0, duplicates: 0,
            reordered: 0, restarts: 0, evicted: 0),
        snapshots: .init(served: 0, refused: 0), limits: .init(refusedActions: 0, subscriptionsUntracked: 0),
        mailbox: .init(depth: depth, maxDepth: depth), sockets: .init(open: 0, created: 0), process: .init(rssBytes: 0, fds: fds))
}

/// A keep document of channels with these ids and statuses, and these counters.
func keepDocument(_ channels: [(id: String, status: KeepDocument.Channel.Status)], opens: Int = 0, cancels: Int = 0) -> KeepDocument {
    KeepDocument(
        channels: channels.map {
            KeepDocument.Channel(
                id: $0.id, lifetime: .permanent, broadcasting: "nothing", delivery: "immediate", status: $0.status,
                supervised: true, sinceMs: 0, ageMs: 0, opens: 1, recreates: 0, deliveries: 0, drops: 0, history: [])
        },
        counters: .init(
            cycles: 0, changedCycles: 0, opens: opens, cancels: cancels, recreates: 0, deliveries: 0, drops: 0,
            live: 0, lastMs: 0, maxMs: 0))
}
