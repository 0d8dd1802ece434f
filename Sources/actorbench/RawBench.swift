import BenchSupport
import Foundation
import ZMQ

/// Raw libzmq through the `ZMQ` module: DEALER→ROUTER round trips (as the C baseline's `lat.c` in
/// dealer mode) and a DEALER→ROUTER one-way blast, each against a child process.
enum RawBench {
    /// `actorbench raw-echo`: binds a ROUTER, prints its endpoint, echoes every message.
    static func runEcho() throws {
        ChildProcess.exitWhenParentGoes()
        let context = try ZMQContext()
        let router = try context.socket(.router)
        try router.bind("tcp://127.0.0.1:*")
        emit(try router.lastEndpoint ?? "")
        while true {
            try router.receive { frames in
                for index in 0..<frames.count {
                    try router.send(frames[index], flags: index == frames.count - 1 ? [] : .more)
                }
            }
        }
    }

    /// `actorbench raw-sink <count>`: binds a ROUTER, prints its endpoint, receives `count`
    /// messages and prints the rate from the first to the last.
    static func runSink(count: Int) throws {
        ChildProcess.exitWhenParentGoes()
        let context = try ZMQContext()
        let router = try context.socket(.router)
        try router.setOption(.receiveHighWaterMark, 0)
        try router.bind("tcp://127.0.0.1:*")
        emit(try router.lastEndpoint ?? "")
        var first: UInt64 = 0
        var last: UInt64 = 0
        for index in 0..<count {
            try router.receive { _ in last = nowNanoseconds() }
            if index == 0 { first = last }
        }
        emit(String(format: "RAW_THR count=%d msg_s=%.0f", count, Double(count - 1) / max(Double(last &- first) / 1e9, 1e-9)))
    }

    /// Round trips of a 16-byte message to a `raw-echo` child: 1,000 warm-up, then `count` timed.
    static func latency(count: Int) throws -> [UInt64] {
        let child = ChildProcess.spawnSelf(["raw-echo"])
        defer { child.finish(grace: .seconds(2)) }
        guard let endpoint = child.readLine() else { fail("raw-echo did not start") }
        let context = try ZMQContext()
        let dealer = try context.socket(.dealer)
        defer {
            dealer.close()
            try? context.terminate(timeout: .seconds(2))
        }
        try dealer.setOption(.receiveTimeout, .seconds(10))
        try dealer.connect(endpoint)
        var samples = [UInt64](repeating: 0, count: count)
        for index in 0..<(count + 1000) {
            let start = nowNanoseconds()
            try benchPayload.withUnsafeBytes { _ = try dealer.send($0) }
            _ = try dealer.receive { $0.count }
            if index >= 1000 { samples[index - 1000] = nowNanoseconds() &- start }
        }
        return samples.sorted()
    }

    /// Messages/s of a 16-byte DEALER→ROUTER blast of `count` messages, measured by the receiver.
    static func throughput(count: Int) throws -> Double {
        let child = ChildProcess.spawnSelf(["raw-sink", "\(count)"])
        defer { child.finish(grace: .seconds(2)) }
        guard let endpoint = child.readLine() else { fail("raw-sink did not start") }
        let context = try ZMQContext()
        let dealer = try context.socket(.dealer)
        defer {
            dealer.close()
            try? context.terminate(timeout: .seconds(2))
        }
        try dealer.setOption(.sendHighWaterMark, 0)
        try dealer.connect(endpoint)
        try benchPayload.withUnsafeBytes { payload in
            for _ in 0..<count { try dealer.send(payload) }
        }
        guard let line = child.readLine(), let rate = field("msg_s", in: line) else { fail("raw-sink gave no result") }
        return rate
    }
}
