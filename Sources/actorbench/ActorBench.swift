import ActorEchoInterface
import BenchSupport
import Distributed
import Foundation
import RexActors
import RexActorsZMQ

/// The actor system over `ZMQActorTransport` (DEALER/ROUTER over tcp loopback): remote calls to an
/// `EchoActor` in a child process, reached through the `$Echo` interface only.
enum ActorBench {
    /// `actorbench actor-serve <client-endpoint>`: hosts an `EchoActor`, prints the ROUTER's
    /// endpoint and the actor's number, and serves until the parent goes.
    static func serve(clientEndpoint: String) async throws {
        ChildProcess.exitWhenParentGoes()
        let zmq = try ZMQActorTransport(node: "server", bind: "tcp://127.0.0.1:*", peers: ["client": clientEndpoint])
        let system = ClusterActorSystem(node: "server", transport: zmq.transport)
        zmq.attach(system)
        try await system.register(EchoActor.callTargets)
        let echo = EchoActor(actorSystem: system)
        emit(zmq.endpoint)
        emit("\(echo.id.number)")
        while true { try await Task.sleep(for: .seconds(3600)) }
    }

    /// A client system connected to a fresh `actor-serve` child, and the `$Echo` reference.
    struct Session {
        let child: ChildProcess
        let zmq: ZMQActorTransport
        let system: ClusterActorSystem
        let echo: any Echo

        init() async throws {
            zmq = try ZMQActorTransport(node: "client", bind: "tcp://127.0.0.1:*")
            child = ChildProcess.spawnSelf(["actor-serve", zmq.endpoint])
            guard let endpoint = child.readLine(), let number = child.readLine().flatMap({ UInt64($0) }) else {
                fail("actor-serve did not start")
            }
            zmq.addPeer("server", endpoint: endpoint)
            system = ClusterActorSystem(node: "client", transport: zmq.transport)
            zmq.attach(system)
            try await system.register($Echo.callTargets)
            echo = try $Echo.resolve(id: ClusterActorID(node: "server", number: number), using: system)
        }

        func close() {
            child.finish(grace: .seconds(2))
            system.shutdown()
            zmq.stop()
        }
    }

    /// Round trips of `echo` with a 16-byte argument: 1,000 warm-up, then `count` timed.
    static func latency(count: Int) async throws -> [UInt64] {
        let session = try await Session()
        defer { session.close() }
        var samples = [UInt64](repeating: 0, count: count)
        for index in 0..<(count + 1000) {
            let start = nowNanoseconds()
            _ = try await session.echo.echo(benchPayload)
            if index >= 1000 { samples[index - 1000] = nowNanoseconds() &- start }
        }
        return samples.sorted()
    }

    /// One-way `deliver` calls/s with a 16-byte argument, measured by the receiving actor from the
    /// first call it ran to the last. The caller waits out a full transport queue, and keeps at most
    /// `window` calls unexecuted at the receiver (asking `delivered()` every 1,024 calls): one-way
    /// calls past the receiver's `maxInboundCallsPerMember` would be dropped and counted there.
    static func throughput(count: Int) async throws -> Double {
        let session = try await Session()
        defer { session.close() }
        _ = try await session.echo.echo(benchPayload)  // connected both ways
        var busy = 0
        let window = 3_072
        for sent in 0..<count {
            if sent % 1024 == 0 && sent >= window {
                while try await session.echo.delivered().count < sent - window + 1024 {
                    try await Task.sleep(for: .microseconds(200))
                }
            }
            while true {
                do {
                    try await session.echo.deliver(benchPayload)
                    break
                } catch let error as ActorCallError where error.code == .transportBusy {
                    busy += 1
                    try await Task.sleep(for: .microseconds(100))
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let report = try await session.echo.delivered()
            if report.count >= count {
                return Double(report.count - 1) / max(Double(report.firstToLastNanoseconds) / 1e9, 1e-9)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        fail("the server ran fewer than \(count) one-way calls within 60 s")
    }
}
