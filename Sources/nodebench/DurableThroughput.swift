import Foundation
import RexControl
import RexFeeds
import RexNode
import Synchronization
import ZMQ

/// Durable operator actions through the control endpoint: pipelined DEALER clients (one thread
/// each) send `set` actions to one in-process node and count the "accepted" replies, for a node
/// without a data directory, with `--durability none` and with `--durability batch` (group
/// commit), in rounds that alternate the modes. Prints actions/s and the node's CPU per action
/// (its reactor thread, and reactor + journal thread), next to this disk's fsync cost measured in
/// the same run.
///
///   nodebench durable [actions] [clients] [window] [rounds]   defaults 100000 4 256 3
enum DurableThroughput {
    enum Mode: String, CaseIterable {
        case noDataDir = "no data dir", none = "--durability none", batch = "--durability batch"
    }

    struct Round {
        var seconds: Double
        var reactorMicros: Double
        var nodeMicros: Double
    }

    static func main(_ arguments: [String]) async throws {
        let numbers = arguments.compactMap { Int($0) }
        let actions = numbers.count > 0 ? numbers[0] : 100_000
        let clients = numbers.count > 1 ? numbers[1] : 4
        let window = numbers.count > 2 ? numbers[2] : 256
        let rounds = numbers.count > 3 ? numbers[3] : 3
        guard (1...10_000_000).contains(actions), (1...64).contains(clients), (1...100_000).contains(window), (1...20).contains(rounds)
        else {
            fail("usage: nodebench durable [actions 1…10^7] [clients 1…64] [window 1…10^5] [rounds 1…20]", code: 64)
        }
        let scratch = NSTemporaryDirectory() + "nodebench-durable-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let fsync = fsyncCost(directory: scratch)

        var results: [Mode: [Round]] = [:]
        for round in 0..<rounds {
            for mode in Mode.allCases {
                let directory = scratch + "/\(mode == .batch ? "batch" : "none")-\(round)"
                results[mode, default: []].append(
                    try await run(mode, directory: directory, actions: actions, clients: clients, window: window))
            }
        }
        emit(
            "durable operator actions through the control endpoint: \(clients) clients × \(window) in flight, "
                + "\(actions) set actions per round (16 topics per client), \(rounds) rounds (median)")
        emit("this disk's fsync (4 KiB write + fsync, 200 times, in \(scratch)): p50 \(format(fsync.p50)) ms, p99 \(format(fsync.p99)) ms")
        let baseline = median(results[.noDataDir]!.map(\.reactorMicros))
        emit("MODE                    ACTIONS/S   REACTOR µs/ACTION (min)   vs NO DATA DIR (min)   NODE µs/ACTION (reactor+journal)")
        let baselineMin = results[.noDataDir]!.map(\.reactorMicros).min() ?? .nan
        for mode in Mode.allCases {
            let list = results[mode]!
            let rate = median(list.map { Double(actions) / $0.seconds })
            let reactor = median(list.map(\.reactorMicros))
            let reactorMin = list.map(\.reactorMicros).min() ?? .nan
            let node = median(list.map(\.nodeMicros))
            let versus =
                mode == .noDataDir
                ? "-" : String(format: "%+.1f %% (%+.1f %%)", (reactor / baseline - 1) * 100, (reactorMin / baselineMin - 1) * 100)
            emit(
                "\(mode.rawValue.padding(toLength: 22, withPad: " ", startingAt: 0))  \(String(format: "%9.0f", rate))   "
                    + "\(String(format: "%10.2f (%5.2f)", reactor, reactorMin))        \(versus.padding(toLength: 21, withPad: " ", startingAt: 0))  \(String(format: "%.2f", node))"
            )
        }
    }

    private static func run(_ mode: Mode, directory: String, actions: Int, clients: Int, window: Int) async throws -> Round {
        let durable: DurableOptions? =
            switch mode {
            case .noDataDir: nil
            case .none: DurableOptions(directory: directory, mode: .none)
            case .batch: DurableOptions(directory: directory, mode: .batch)
            }
        let node = try Node.start(
            NodeConfiguration(
                id: "dur", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
                logLevel: .warning, durable: durable))
        let endpoint = node.controlEndpoint
        let context = try ZMQContext()
        let perClient = actions / clients
        let cpuBefore = threadCPUSeconds()
        let start = nowNanoseconds()
        let threads = (0..<clients).map { index -> ClientThread in
            let result = ClientThread()
            let thread = Thread {
                defer { result.done.signal() }
                do {
                    try client(context: context, endpoint: endpoint, index: index, count: perClient, window: window)
                } catch {
                    result.failure.withLock { $0 = "\(error)" }
                }
            }
            thread.start()
            return result
        }
        for result in threads {
            result.done.wait()
            if let message = result.failure.withLock({ $0 }) { fail("client: \(message)") }
        }
        let seconds = Double(nowNanoseconds() - start) / 1e9
        let cpuAfter = threadCPUSeconds()
        func spent(_ prefixes: [String]) -> Double {
            cpuAfter.filter { entry in prefixes.contains { entry.key.hasPrefix($0) } }
                .reduce(0.0) { $0 + $1.value - (cpuBefore[$1.key] ?? 0) } / Double(perClient * clients) * 1e6
        }
        let round = Round(seconds: seconds, reactorMicros: spent(["rexnode-dur"]), nodeMicros: spent(["rexnode-dur", "rexnode-journal"]))
        await node.stop()
        try? context.terminate(timeout: .seconds(1))
        return round
    }

    /// One pipelined client: keeps `window` requests in flight until `count` are answered.
    private static func client(context: ZMQContext, endpoint: String, index: Int, count: Int, window: Int) throws {
        let socket = try context.socket(.dealer)
        defer { socket.close() }
        try socket.setOption(.receiveTimeout, .seconds(20))
        try socket.connect(endpoint)
        // A few keys per client: the state stays the same size however long the run (a node's
        // cost per batch grows with its feeds), so the modes compare at one state size.
        let requests: [[UInt8]] = (0..<16).map { key in
            Array(#"{"v":1,"op":"dispatch","action":{"type":"set","topic":"bench.c\#(index).k\#(key)","value":"v"}}"#.utf8)
        }
        let accepted = Array(#""accepted":true"#.utf8)
        var sent = 0
        var answered = 0
        func check(_ frames: [[UInt8]]) throws {
            guard let reply = frames.last, reply.count >= accepted.count,
                reply.indices.dropLast(accepted.count - 1).contains(where: { reply[$0..<($0 + accepted.count)].elementsEqual(accepted) })
            else { throw BenchError("refused: \(String(decoding: frames.last ?? [], as: UTF8.self))") }
            answered += 1
        }
        while answered < count {
            while sent < count, sent - answered < window {
                _ = try socket.send(requests[sent % requests.count])
                sent += 1
            }
            try check(try socket.receiveMultipart())
            while answered < count, let frames = try socket.tryReceiveMultipart() { try check(frames) }
        }
    }

    /// A client thread's end and its error, if any.
    final class ClientThread: Sendable {
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<String?>(nil)
    }

    struct BenchError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// p50 and p99 milliseconds of a 4 KiB write followed by fsync, in `directory`.
    private static func fsyncCost(directory: String) -> (p50: Double, p99: Double) {
        let path = directory + "/fsync-probe"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { return (.nan, .nan) }
        defer {
            close(fd)
            unlink(path)
        }
        let block = [UInt8](repeating: 0x5a, count: 4096)
        var samples: [Double] = []
        for _ in 0..<200 {
            _ = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            let start = nowNanoseconds()
            _ = fsync(fd)
            samples.append(Double(nowNanoseconds() - start) / 1e6)
        }
        samples.sort()
        return (samples[samples.count / 2], samples[samples.count * 99 / 100])
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    private static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
