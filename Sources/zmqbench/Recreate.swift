import BenchSupport
import Foundation
import ZMQ

/// The Swift twin of `churn.c recreate … xpub`: SUB socket + connect + subscribe + first message
/// + close cycles against a reactive XPUB publisher in a child process.
enum Recreate {
    /// `zmqbench recreate <cycles>`: prints one `RECREATE …` line.
    static func run(cycles: Int) throws {
        let child = ChildProcess.spawnSelf(["xpub-reactive"])
        guard let endpoint = child.readLine() else { fail("publisher died") }
        let context = try ZMQContext()
        var first: [UInt64] = []
        var closeTimes: [UInt64] = []
        first.reserveCapacity(cycles)
        closeTimes.reserveCapacity(cycles)
        let fds0 = openFileDescriptorCount()
        var timeouts = 0
        let start = nowNanoseconds()
        let budget: UInt64 = 15_000_000_000
        var index = 0
        while index < cycles && nowNanoseconds() - start < budget {
            index += 1
            let a = nowNanoseconds()
            let sub = try ZMQSocket(context, kind: .sub)  // linger 0 (and send-HWM 0) at creation
            try sub.setOption(.receiveTimeout, .seconds(5))
            try sub.connect(endpoint)
            try sub.subscribe(benchTopic)
            let received: Bool
            do {
                received = try sub.receive { frames in frames.count == 2 }
            } catch let error as ZMQError where error.code == .wouldBlock {
                received = false
            }
            let b = nowNanoseconds()
            sub.close()
            let c = nowNanoseconds()
            if !received {
                timeouts += 1
                continue
            }
            first.append(b - a)
            closeTimes.append(c - b)
        }
        let seconds = Double(nowNanoseconds() - start) / 1e9
        usleep(200_000)  // let the reaper finish closing
        let fds1 = openFileDescriptorCount()
        first.sort()
        closeTimes.sort()
        emit(
            String(
                format: "RECREATE impl=swift publisher=xpub-reactive cycles=%d timeouts=%d cycles_s=%.0f "
                    + "create_to_first_msg_median_us=%.1f p99_us=%.1f close_median_us=%.1f fds_before=%d fds_after=%d",
                first.count, timeouts, Double(first.count) / seconds, percentileMicroseconds(first, 50),
                percentileMicroseconds(first, 99), percentileMicroseconds(closeTimes, 50), fds0, fds1))
        try context.terminate(timeout: .seconds(5))
        child.finish(grace: .seconds(1))
    }

    /// `zmqbench xpub-reactive` (child role): an XPUB (verbose) that publishes one
    /// [topic, t_seen] message the moment it sees a subscription; prints its endpoint.
    static func runReactivePublisher() throws {
        ChildProcess.exitWhenParentGoes()
        alarm(180)
        let context = try ZMQContext()
        let xpub = try context.socket(.xpub)
        try xpub.setOption(.xpubVerbose, true)
        try xpub.bind("tcp://127.0.0.1:*")
        emit(try xpub.lastEndpoint ?? "")
        var stamp: UInt64 = 0
        while true {
            try xpub.receive { frames in
                stamp = nowNanoseconds()
                let frame = frames[0]
                guard frame.count >= 1, frame[0] == 1 else { return }  // unsubscribe
                _ = try xpub.send(UnsafeRawBufferPointer(rebasing: frame[1...]), flags: .more)
                _ = try withUnsafeBytes(of: &stamp) { try xpub.send($0) }
            }
        }
    }
}
