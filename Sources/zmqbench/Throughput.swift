import BenchSupport
import Foundation
import ZMQ

/// The Swift twin of the C baseline's `thr.c`: PUB→SUB throughput with [topic, payload] messages.
///
/// Same method: the SUB subscribes to the data topic first and `sync` second, waits for a `sync`
/// message the publisher repeats every 1 ms, then tells the publisher to start over a REQ/REP side
/// channel. Timing runs from the first data message received to the last. For inproc the
/// publisher is a thread sharing the context; for ipc/tcp it is a child process (here: this
/// executable re-launched with `thr-pub`, where C forks).
enum Throughput {
    struct Config {
        var transport: String
        var size: Int
        var count: Int
        var hwm: Int
        var pubEndpoint = ""
        var syncEndpoint = ""
        /// CURVE mode: the publisher's key pair (a throwaway one made for this run; the child
        /// publisher gets its secret on the command line) and the subscriber's.
        var curveServer: ZMQCurveKeyPair?
    }

    /// `zmqbench thr <inproc|ipc|tcp> <size> <count> <hwm>`: prints one `THR …` line.
    static func runSubscriber(transport: String, size: Int, count: Int, hwm: Int, curve: Bool = false) throws {
        var config = Config(transport: transport, size: size, count: count, hwm: hwm)
        if curve { config.curveServer = try ZMQCurveKeyPair.generate() }
        let curveArgument = config.curveServer.map { [$0.secretKey.z85] } ?? []
        let context: ZMQContext
        var child: ChildProcess?
        var publisherThread: Thread?
        let publisherDone = DispatchSemaphore(value: 0)
        switch transport {
        case "inproc":
            context = try ZMQContext()
            config.pubEndpoint = "inproc://pub"
            config.syncEndpoint = "inproc://sync"
            let shared = context
            let publisherConfig = config
            // Bind first (in the thread), connect after: start the thread, tiny wait (as thr.c).
            publisherThread = Thread {
                do { try publish(context: shared, config: publisherConfig, report: nil) } catch {
                    fail("publisher: \(error)")
                }
                publisherDone.signal()
            }
            publisherThread?.start()
            usleep(20_000)
        case "ipc":
            context = try ZMQContext()
            config.pubEndpoint = "ipc:///tmp/zb-swift-thr-\(getpid())-pub"
            config.syncEndpoint = "ipc:///tmp/zb-swift-thr-\(getpid())-sync"
            child = ChildProcess.spawnSelf(
                [
                    "thr-pub", transport, "\(size)", "\(count)", "\(hwm)",
                    config.pubEndpoint, config.syncEndpoint,
                ] + curveArgument)
        case "tcp":
            context = try ZMQContext()
            child = ChildProcess.spawnSelf(
                [
                    "thr-pub", transport, "\(size)", "\(count)", "\(hwm)",
                    "tcp://127.0.0.1:*", "tcp://127.0.0.1:*",
                ] + curveArgument)
            guard let pub = child?.readLine(), let sync = child?.readLine() else { fail("publisher died") }
            config.pubEndpoint = pub
            config.syncEndpoint = sync
        default:
            fail("bad transport \(transport)", code: 1)
        }
        if transport == "ipc" { _ = child?.readLine() }  // "ready": both endpoints are bound

        emit(try measure(context: context, config: config))
        child?.finish(grace: .seconds(3))
        if publisherThread != nil { _ = publisherDone.wait(timeout: .now() + 5) }
        try context.terminate(timeout: .seconds(5))
        if transport == "ipc" {
            unlink(String(config.pubEndpoint.dropFirst(6)))
            unlink(String(config.syncEndpoint.dropFirst(6)))
        }
    }

    /// `zmqbench thr-sub <transport> <size> <count> <hwm> <pub-ep> <sync-ep>`: the subscriber alone,
    /// against a `thr-pub` started separately. For profilers (valgrind cannot follow Foundation's
    /// process spawn); the figures are the same as `thr`'s.
    static func runSubscriberProcess(_ arguments: [String]) throws {
        guard let config = Config(childArguments: arguments) else {
            fail("usage: thr-sub transport size count hwm pub-ep sync-ep", code: 64)
        }
        let context = try ZMQContext()
        emit(try measure(context: context, config: config))
        try context.terminate(timeout: .seconds(5))
    }

    /// The subscriber side (thr.c `main` after the publisher is started): returns the `THR …` line.
    static func measure(context: ZMQContext, config: Config) throws -> String {
        let (transport, size, count, hwm) = (config.transport, config.size, config.count, config.hwm)
        let sub = try context.socket(.sub)
        defer { sub.close() }
        try sub.setOption(.receiveHighWaterMark, hwm)
        if let server = config.curveServer {
            try sub.makeCurveClient(try ZMQCurveKeyPair.generate(), serverKey: server.publicKey)
        }
        try sub.subscribe(benchTopic)  // data first …
        try sub.subscribe("sync")  // … then sync
        try sub.connect(config.pubEndpoint)
        try sub.setOption(.receiveTimeout, .seconds(10))

        // 1. wait for a sync message (proves both subscriptions reached the PUB)
        while true {
            let isSync = try sub.receive { frames in frames.count >= 1 && frames.string(0) == "sync" }
            if isSync { break }
        }
        let req = try context.socket(.req)
        defer { req.close() }
        try req.connect(config.syncEndpoint)
        try req.send("ready")
        _ = try req.receiveMultipart()
        try sub.unsubscribe("sync")

        // 2. timed receive
        var got = 0
        var bytes = 0
        var lastSequence = -1
        var reorder = 0
        var tFirst: UInt64 = 0
        var tLast: UInt64 = 0
        let checkSequence = size >= 8
        while got < count {
            do {
                let counted = try sub.receive { frames -> Bool in
                    guard frames.count >= 2 else { return false }
                    let topic = frames[0]
                    if topic.count == 4 && topic.elementsEqual("sync".utf8) { return false }
                    tLast = nowNanoseconds()
                    let payload = frames[1]
                    if checkSequence {
                        let sequence = payload.loadUnaligned(as: Int.self)
                        if sequence <= lastSequence { reorder += 1 }
                        lastSequence = sequence
                    }
                    bytes += payload.count
                    return true
                }
                if counted {
                    if got == 0 {
                        tFirst = tLast
                        try sub.setOption(.receiveTimeout, .seconds(1))
                    }
                    got += 1
                }
            } catch let error as ZMQError where error.code == .wouldBlock {
                break  // receive timeout expired: the rest was dropped
            }
        }
        try req.send("done")
        try req.setOption(.receiveTimeout, .seconds(5))
        var publisherSeconds = 0.0
        if let reply = try? req.receiveMultipart(), let first = reply.first {
            publisherSeconds = Double(String(decoding: first, as: UTF8.self)) ?? 0
        }
        let seconds = max(Double(tLast &- tFirst) / 1e9, 1e-9)
        return String(
            format: "THR impl=swift%@ transport=%@ size=%d count=%d hwm=%d recv=%d delivered_pct=%.2f secs=%.4f "
                + "msg_s=%.0f mb_s=%.1f pub_send_msg_s=%.0f reorder=%d",
            config.curveServer == nil ? "" : "-curve", transport, size, count, hwm, got, 100.0 * Double(got) / Double(count), seconds,
            Double(got) / seconds, Double(bytes) / seconds / 1e6,
            publisherSeconds > 0 ? Double(count) / publisherSeconds : 0.0, reorder)
    }

    /// `zmqbench thr-pub <transport> <size> <count> <hwm> <pub-ep> <sync-ep>` (child process role).
    static func runPublisherProcess(_ arguments: [String]) throws {
        ChildProcess.exitWhenParentGoes()
        alarm(120)
        guard let config = Config(childArguments: arguments) else {
            fail("usage: thr-pub transport size count hwm pub-ep sync-ep", code: 1)
        }
        let context = try ZMQContext()
        try publish(context: context, config: config, report: emit)
        try context.terminate(timeout: .seconds(5))
    }

    /// The publisher side (thr.c `publisher`).
    static func publish(context: ZMQContext, config: Config, report: ((String) -> Void)?) throws {
        let pub = try context.socket(.pub)
        let rep = try context.socket(.rep)
        defer {
            pub.close()
            rep.close()
        }
        try pub.setOption(.sendHighWaterMark, config.hwm)  // before bind: the listener keeps it
        // No ZAP handler in this context: libzmq then lets every CURVE client in.
        if let server = config.curveServer {
            try pub.setOption(.curveServer, true)
            try pub.setOption(.curveSecretKey, server.secretKey)
        }
        try pub.bind(config.pubEndpoint)
        try rep.bind(config.syncEndpoint)
        if let report {
            if config.transport == "tcp" {
                report(try pub.lastEndpoint ?? "")
                report(try rep.lastEndpoint ?? "")
            } else {
                report("ready")
            }
        }
        let poller = ZMQPoller(capacity: 1)
        let repToken = try poller.register(rep)
        let deadline = nowNanoseconds() + 10_000_000_000
        while true {
            try pub.send("sync", flags: .more)
            try pub.send("")
            if try poller.poll(timeoutMilliseconds: 1) > 0, poller.isReadable(repToken) { break }
            if nowNanoseconds() > deadline { fail("publisher: no subscriber", code: 3) }
        }
        _ = try rep.receiveMultipart()
        try rep.send("go")

        let topic = UnsafeMutableRawBufferPointer.allocate(byteCount: benchTopic.utf8.count, alignment: 8)
        topic.copyBytes(from: benchTopic.utf8)
        let payload = UnsafeMutableRawBufferPointer.allocate(byteCount: max(8, config.size), alignment: 8)
        payload.initializeMemory(as: UInt8.self, repeating: 0)
        defer {
            topic.deallocate()
            payload.deallocate()
        }
        let topicFrame = UnsafeRawBufferPointer(topic)
        let payloadFrame = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(payload)[0..<config.size])
        let stamp = config.size >= 8
        let t0 = nowNanoseconds()
        for index in 0..<config.count {
            if stamp { payload.storeBytes(of: index, as: Int.self) }
            try pub.send(topicFrame, flags: .more)
            try pub.send(payloadFrame)
        }
        let t1 = nowNanoseconds()
        // wait (bounded) for the subscriber's "done", answer with our send time
        try rep.setOption(.receiveTimeout, .seconds(30))
        if (try? rep.receiveMultipart()) != nil {
            try rep.send(String(format: "%.6f", Double(t1 - t0) / 1e9))
        }
        try rep.setOption(.linger, .seconds(1))
    }
}

extension Throughput.Config {
    /// Parses the child roles' arguments: `transport size count hwm pub-ep sync-ep`; nil if malformed.
    init?(childArguments arguments: [String]) {
        guard arguments.count == 6 || arguments.count == 7, let size = Int(arguments[1]), let count = Int(arguments[2]),
            let hwm = Int(arguments[3])
        else { return nil }
        var server: ZMQCurveKeyPair?
        if arguments.count == 7 {
            guard let secret = ZMQCurveKey(z85: arguments[6]), let pair = try? ZMQCurveKeyPair(secretKey: secret) else { return nil }
            server = pair
        }
        self.init(
            transport: arguments[0], size: size, count: count, hwm: hwm,
            pubEndpoint: arguments[4], syncEndpoint: arguments[5], curveServer: server)
    }
}
