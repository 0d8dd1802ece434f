import ActorEchoInterface
import Distributed
import Foundation
import RexActors
import RexActorsZMQ
import Testing

/// The actor system over ZeroMQ across processes: this test target links the `Echo` interface
/// only; the implementation lives in `actorbench`, started as `actorbench actor-serve`.
@Suite(.serialized, .timeLimit(.minutes(1))) struct ZMQTransportTests {
    @Test func aClientWithTheInterfaceOnlyCallsAnotherProcess() async throws {
        let zmq = try ZMQActorTransport(node: "client", bind: "tcp://127.0.0.1:*")
        defer { zmq.stop() }
        let server = try ServerProcess(clientEndpoint: zmq.endpoint)
        defer { server.stop() }
        zmq.addPeer("server", endpoint: server.endpoint)
        let system = ClusterActorSystem(node: "client", transport: zmq.transport)
        zmq.attach(system)
        defer { system.shutdown() }
        try await system.register($Echo.callTargets)
        let echo = try $Echo.resolve(id: ClusterActorID(node: "server", number: server.actorNumber), using: system)

        #expect(try await echo.echo([1, 2, 3]) == [1, 2, 3])
        let payload = [UInt8](repeating: 9, count: 16)
        for _ in 0..<100 { try await echo.deliver(payload) }
        var report = try await echo.delivered()
        for _ in 0..<500 where report.count < 100 {
            try await Task.sleep(for: .milliseconds(10))
            report = try await echo.delivered()
        }
        #expect(report.count == 100)

        // An actor the server does not host: an error over the wire, not a hang.
        let ghost = try $Echo.resolve(id: ClusterActorID(node: "server", number: 999), using: system)
        let unknown = await #expect(throws: ActorCallError.self) { try await ghost.echo([1]) }
        #expect(unknown?.code == .unknownActor)

        // The server process goes: a call times out at its deadline; once the membership says
        // dead, calls fail at once.
        server.stop()
        let timedOut = await #expect(throws: ActorCallError.self) {
            try await ClusterActorSystem.withDeadline(.milliseconds(300)) { try await echo.echo([1]) }
        }
        #expect(timedOut?.code == .deadlineExceeded)
        system.memberChanged("server", to: .dead)
        let dead = await #expect(throws: ActorCallError.self) { try await echo.echo([1]) }
        #expect(dead?.code == .memberDead)
    }

    @Test func theTransportBindsAndReportsItsEndpoint() throws {
        let zmq = try ZMQActorTransport(node: "n1", bind: "tcp://127.0.0.1:*")
        defer { zmq.stop() }
        #expect(zmq.endpoint.hasPrefix("tcp://127.0.0.1:"))
        #expect(throws: (any Error).self) { try ZMQActorTransport(node: "n2", bind: zmq.endpoint) }
    }
}

/// `actorbench actor-serve` as a child process (it exits when its stdin closes).
final class ServerProcess {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    let endpoint: String
    let actorNumber: UInt64

    init(clientEndpoint: String) throws {
        let here = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let binary = here.deletingLastPathComponent().appendingPathComponent("actorbench").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build actorbench first (swift build --build-tests builds it)")
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["actor-serve", clientEndpoint]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var text = ""
        while text.filter({ $0 == "\n" }).count < 2 {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        let lines = text.split(separator: "\n").map(String.init)
        guard lines.count >= 2, let number = UInt64(lines[1]) else {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
            throw ActorCallError(.unknownActor, "actor-serve did not start: \(text)")
        }
        endpoint = lines[0]
        actorNumber = number
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
