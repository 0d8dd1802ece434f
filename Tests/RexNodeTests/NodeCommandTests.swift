import RexControl
import Foundation
import NodeTestSupport
import Testing
@testable import RexNode

/// The `rexnode` command line: parsing in-process, and the real executable as a process.
@Suite struct NodeCommandTests {
    @Test func parsesFlagsIntoAConfiguration() throws {
        let invocation = try NodeCommand.parse([
            "--id", "n1", "--pub", "tcp://127.0.0.1:7101", "--control", "tcp://127.0.0.1:7201",
            "--peer", "n2=tcp://127.0.0.1:7102", "--feed-interval", "20", "--heartbeat", "250", "--log-level", "debug",
            "--max-value-bytes", "1000", "--max-follows", "50", "--snapshot-rate", "7",
        ])
        guard case .run(let configuration) = invocation else {
            Issue.record("expected a run invocation")
            return
        }
        #expect(configuration.id == "n1")
        #expect(configuration.peers == ["n2": "tcp://127.0.0.1:7102"])
        #expect(configuration.settings.feedIntervalMs == 20 && configuration.settings.heartbeatIntervalMs == 250)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.settings.limits == NodeLimits(maxValueBytes: 1000, maxFollows: 50, snapshotMessagesPerSecond: 7))
        #expect(try NodeCommand.parse(["--help"]) == .help)
    }

    @Test(arguments: [
        ([], "--id is required"),
        (["--id"], "--id needs a value"),
        (["--id", "n1", "--bogus"], "unknown option '--bogus'"),
        (["--id", "n1", "--pub", "127.0.0.1:7101"], "--pub: '127.0.0.1:7101' is not a ZeroMQ endpoint (expected tcp://HOST:PORT, ipc://PATH or inproc://NAME)"),
        (["--id", "n1", "--peer", "n2"], "--peer takes ID=ENDPOINT (got 'n2')"),
        (["--id", "n1", "--heartbeat", "soon"], "--heartbeat takes a whole number of milliseconds from 0 to 86400000 (got 'soon')"),
        (["--id", "n1", "--log-level", "loud"], "--log-level takes debug, info, warning or error (got 'loud')"),
        // Regression: a huge period overflowed timer arithmetic; limits must be positive and fit an int.
        (["--id", "n1", "--heartbeat", "9223372036854775807"], "--heartbeat takes a whole number of milliseconds from 0 to 86400000 (got '9223372036854775807')"),
        (["--id", "n1", "--max-value-bytes", "0"], "--max-value-bytes takes a whole number from 1 to 2147483647 (got '0')"),
        (["--id", "n1", "--queue-messages", "4294967296"], "--queue-messages takes a whole number from 1 to 2147483647 (got '4294967296')"),
        (["--id", "n1", "--max-feeds", "-5"], "--max-feeds takes a whole number from 1 to 2147483647 (got '-5')"),
        (["--id", "bad id"], "node id 'bad id' must be non-empty and use only letters, digits, '-', '_' or '.'"),
    ])
    func rejectsBadInputWithAClearMessage(arguments: [String], message: String) {
        #expect(throws: NodeCommand.UsageError(message: message)) { try NodeCommand.parse(arguments) }
    }

    /// The built `rexnode` binary, next to the test bundle.
    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("rexnode").path), directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("rexnode")
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        process.waitUntilExit()
        let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, out, err)
    }

    @Test func helpListsEveryOptionAndExitsZero() throws {
        let result = try Self.run(["--help"])
        #expect(result.status == 0)
        for option in ["--id", "--pub", "--control", "--peer", "--cluster", "--feed-interval", "--follow-settle", "--heartbeat", "--log-level"] {
            #expect(result.output.contains(option), "help mentions \(option)")
        }
    }

    @Test func badFlagsExit64WithAMessage() throws {
        let result = try Self.run(["--id", "n1", "--nope"])
        #expect(result.status == 64)
        #expect(result.error.contains("Error: unknown option '--nope'"))
    }

    @Test func aPortInUseExits1AndSaysSo() async throws {
        let holder = try startNode("holder")
        let result = try Self.run(["--id", "n9", "--pub", holder.pubEndpoint, "--control", "tcp://127.0.0.1:*"])
        #expect(result.status == 1)
        #expect(result.error.contains("could not start"))
        #expect(result.error.contains("Address already in use"))
        await holder.stop()
    }

    @Test func startsAnswersPingAndExitsZeroOnSIGTERM() async throws {
        let port = try freeLoopbackPort()
        let control = "tcp://127.0.0.1:\(port)"
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["--id", "p1", "--pub", "tcp://127.0.0.1:*", "--control", control, "--log-level", "warning"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var answered = false
        for _ in 0..<50 where !answered {
            answered = ((try await controlRequest(control, #"{"v": 1, "op": "ping"}"#, timeout: .milliseconds(200)))?["ok"] as? Bool) == true
        }
        #expect(answered, "the node answered ping")
        let start = ContinuousClock.now
        process.terminate()   // SIGTERM
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(ContinuousClock.now - start < .seconds(1), "exits within a second")
    }

    /// A free loopback port below 32768, found by binding and releasing it.
    func freeLoopbackPort() throws -> Int {
        for port in stride(from: 20_000 + Int.random(in: 0..<5_000), to: 32_000, by: 7) {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound == 0 { return port }
        }
        throw CocoaError(.fileNoSuchFile)
    }
}
