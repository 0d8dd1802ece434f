import Foundation
import NodeTestSupport
import RexControl
import SharedTestSupport
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The `rexnode` command line: parsing in-process, and the real executable as a process.
@Suite struct NodeCommandTests {
    @Test func parsesFlagsIntoAConfiguration() throws {
        let invocation = try NodeCommand.parse([
            "--id", "n1", "--pub", "tcp://127.0.0.1:7101", "--control", "tcp://127.0.0.1:7201",
            "--peer", "n2=tcp://127.0.0.1:7102,tcp://127.0.0.1:7302", "--feed-interval", "20", "--log-level", "debug",
            "--max-value-bytes", "1000", "--max-follows", "50", "--snapshot-rate", "7",
        ])
        guard case .run(let configuration) = invocation else {
            Issue.record("expected a run invocation")
            return
        }
        #expect(configuration.id == "n1")
        #expect(configuration.peers == ["n2": "tcp://127.0.0.1:7102"])
        #expect(configuration.membershipPeers == ["n2": "tcp://127.0.0.1:7302"])
        #expect(configuration.membershipEndpoint == "tcp://127.0.0.1:7301", "the default, like --pub's and --control's")
        #expect(configuration.settings.feedIntervalMs == 20)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.settings.limits == NodeLimits(maxValueBytes: 1000, maxFollows: 50, snapshotMessagesPerSecond: 7))
        #expect(try NodeCommand.parse(["--help"]) == .help)
    }

    @Test func theProtocolPeriodFlagSetsTheMachinesPeriodAndPingTimeout() throws {
        guard case .run(let slow) = try NodeCommand.parse(["--id", "n1", "--protocol-period", "150"]),
            case .run(let standard) = try NodeCommand.parse(["--id", "n1"])
        else {
            Issue.record("expected run invocations")
            return
        }
        let address = MemberAddress(membership: "tcp://127.0.0.1:7301", pub: "tcp://127.0.0.1:7101")
        let plan = MembershipPlan(slow, address: address)
        #expect(plan.settings.protocolPeriod == .milliseconds(150))
        #expect(plan.settings.pingTimeout == .milliseconds(60))
        let defaults = MembershipPlan(standard, address: address)
        #expect(defaults.settings.protocolPeriod == .milliseconds(100))
        #expect(defaults.settings.pingTimeout == .milliseconds(40))
        var direct = NodeConfiguration(id: "n1")
        direct.membershipPeriodMs = 10_001
        #expect(throws: NodeError.self) { try direct.validate() }
    }

    @Test func membershipFlagsAndTheClusterFileNameTheMembershipEndpoints() throws {
        guard
            case .run(let joining) = try NodeCommand.parse([
                "--id", "n9", "--membership", "tcp://127.0.0.1:7309", "--join", "tcp://127.0.0.1:7301", "--join", "tcp://127.0.0.1:7302",
            ])
        else {
            Issue.record("expected a run invocation")
            return
        }
        #expect(joining.membershipEndpoint == "tcp://127.0.0.1:7309")
        #expect(joining.membershipSeeds == ["tcp://127.0.0.1:7301", "tcp://127.0.0.1:7302"])
        let file = try ClusterFile.parse(
            Array(
                """
                {"nodes": [{"id": "n1", "pub": "tcp://127.0.0.1:7101", "control": "tcp://127.0.0.1:7201", "membership": "tcp://127.0.0.1:7301"},
                           {"id": "n2", "pub": "tcp://127.0.0.1:7102", "control": "tcp://127.0.0.1:7202", "membership": "tcp://127.0.0.1:7302"},
                           {"id": "n3", "pub": "tcp://127.0.0.1:7103", "control": "tcp://127.0.0.1:7203", "membership": "tcp://127.0.0.1:7303"}]}
                """.utf8))
        let n1 = try file.configuration(for: "n1")
        #expect(n1.membershipEndpoint == "tcp://127.0.0.1:7301")
        #expect(n1.membershipPeers == ["n2": "tcp://127.0.0.1:7302", "n3": "tcp://127.0.0.1:7303"])
        #expect(n1.peers == ["n2": "tcp://127.0.0.1:7102", "n3": "tcp://127.0.0.1:7103"])
        // Every node of the file is a first member: one without a membership endpoint could never be probed.
        var partial = file
        partial.nodes[2].membership = nil
        let missing = #expect(throws: NodeError.self) { try partial.configuration(for: "n1") }
        #expect(missing?.message == #"node 'n3' in the cluster file has no "membership" endpoint"#)
        // A peer needs both endpoints; a node with no peer is a cluster of one.
        var lonePeer = NodeConfiguration(id: "n1")
        lonePeer.peers["n2"] = "tcp://127.0.0.1:7102"
        let unprobed = #expect(throws: NodeError.self) { try lonePeer.validate() }
        #expect(unprobed?.message.hasPrefix("peer 'n2' has no membership endpoint") == true)
        var alone = NodeConfiguration(id: "n1")
        alone.membershipSeeds = ["tcp://127.0.0.1:7302"]
        try alone.validate()
        #expect(throws: NodeError.self) {
            var bad = NodeConfiguration(id: "n1")
            bad.membershipEndpoint = "tcp://127.0.0.1:7301 tcp://x:1"
            try bad.validate()
        }
    }

    @Test(arguments: [
        ([], "--id is required"),
        (["--id"], "--id needs a value"),
        (["--id", "n1", "--bogus"], "unknown option '--bogus'"),
        (
            ["--id", "n1", "--pub", "127.0.0.1:7101"],
            "--pub: '127.0.0.1:7101' is not a ZeroMQ endpoint (expected tcp://HOST:PORT, ipc://PATH or inproc://NAME)"
        ),
        (["--id", "n1", "--peer", "n2"], "--peer takes ID=PUB,MEMBERSHIP: the peer's publisher and its membership endpoint (got 'n2')"),
        (
            ["--id", "n1", "--peer", "n2=tcp://127.0.0.1:7102"],
            "--peer takes ID=PUB,MEMBERSHIP: the peer's publisher and its membership endpoint (got 'n2=tcp://127.0.0.1:7102')"
        ),
        (
            ["--id", "n1", "--peer", "n2=tcp://127.0.0.1:7102,"],
            "--peer takes ID=PUB,MEMBERSHIP: the peer's publisher and its membership endpoint (got 'n2=tcp://127.0.0.1:7102,')"
        ),
        (
            ["--id", "n1", "--peer", "n2=tcp://127.0.0.1:7102,7302"],
            "membership of n2: '7302' is not a ZeroMQ endpoint of at most 60 bytes"
        ),
        (
            ["--id", "n1", "--heartbeat", "100"],
            "--heartbeat is gone: every node runs the SWIM membership (its period is --protocol-period, 100 ms by default; see README \"Membership\")"
        ),
        (
            ["--id", "n1", "--protocol-period", "19"],
            "--protocol-period takes a whole number of milliseconds from 20 to 10000 (got '19')"
        ),
        (
            ["--id", "n1", "--protocol-period", "9223372036854775807"],
            "--protocol-period takes a whole number of milliseconds from 20 to 10000 (got '9223372036854775807')"
        ),
        (
            ["--id", "n1", "--feed-interval", "soon"],
            "--feed-interval takes a whole number of milliseconds from 0 to 86400000 (got 'soon')"
        ),
        (["--id", "n1", "--log-level", "loud"], "--log-level takes debug, info, warning or error (got 'loud')"),
        // Regression: a huge period overflowed timer arithmetic; limits must be positive and fit an int.
        (
            ["--id", "n1", "--follow-settle", "9223372036854775807"],
            "--follow-settle takes a whole number of milliseconds from 0 to 86400000 (got '9223372036854775807')"
        ),
        (["--id", "n1", "--max-value-bytes", "0"], "--max-value-bytes takes a whole number from 1 to 2147483647 (got '0')"),
        (
            ["--id", "n1", "--queue-messages", "4294967296"],
            "--queue-messages takes a whole number from 1 to 2147483647 (got '4294967296')"
        ),
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

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
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
        for option in [
            "--id", "--pub", "--control", "--peer", "--cluster", "--feed-interval", "--follow-settle", "--log-level",
            "--log-format", "--membership", "--join", "--advertise", "/readyz",
        ] {
            #expect(result.output.contains(option), "help mentions \(option)")
        }
        #expect(!result.output.contains("--heartbeat"), "no heartbeat flag left to describe")
    }

    @Test func badFlagsExit64WithAMessage() throws {
        let result = try Self.run(["--id", "n1", "--nope"])
        #expect(result.status == 64)
        #expect(result.error.contains("Error: unknown option '--nope'"))
    }

    @Test func aPortInUseExits1AndSaysSo() async throws {
        let holder = try startNode("holder")
        let result = try Self.run([
            "--id", "n9", "--pub", holder.pubEndpoint, "--control", "tcp://127.0.0.1:*", "--membership", "tcp://127.0.0.1:*",
        ])
        #expect(result.status == 1)
        #expect(result.error.contains("could not start"))
        #expect(result.error.contains("Address already in use"))
        await holder.stop()
    }

    /// SIGTERM: exit 0, with `stopped` as the last line logged, after every socket was closed and
    /// the context terminated (no `context_terminate_failed`): `deploy/cluster.sh down` waits for
    /// the process to be gone. How long that takes is the figure `cluster.sh down` prints
    /// ("stopped in N ms").
    @Test func startsAnswersPingAndExitsZeroOnSIGTERMWithStoppedAsItsLastLine() async throws {
        let port = try freeLoopbackPort()
        let control = "tcp://127.0.0.1:\(port)"
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = [
            "--id", "p1", "--pub", "tcp://127.0.0.1:*", "--control", control, "--membership", "tcp://127.0.0.1:*", "--log-level", "info",
        ]
        let log = Pipe()
        process.standardError = log
        let exited = Arrivals()
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let logReader = log.fileHandleForReading
        // Every line, until the last thread of the process has gone (the pipe's end of file).
        let logged = Task { try await offPool { Self.lines(in: logReader) } }
        // Sent at once, delivered when the node binds: the DEALER connects and queues until then.
        let ping = try await controlRequest(control, #"{"v": 1, "op": "ping"}"#, timeout: Arrivals.safetyTimeout)
        #expect(ping?["ok"] as? Bool == true, "the node answered ping")
        process.terminate()  // SIGTERM
        try #require(await exited.wait(), "exits after SIGTERM")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = try await logged.value
        #expect(lines.last?.contains("event=stopped") == true, "stopped is the last line: \(lines.suffix(3))")
        #expect(!lines.contains { $0.contains("context_terminate_failed") }, "every socket closed before the context ended")
    }

    /// Every line read from `handle` until its end of file (blocking).
    static func lines(in handle: FileHandle) -> [String] {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(handle.fileDescriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            data += buffer[..<count]
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Whether a line containing `text` arrives on `handle` before its end of file (blocking).
    static func readsLine(containing text: String, in handle: FileHandle) -> Bool {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(handle.fileDescriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            pending += buffer[..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                if String(decoding: pending[..<newline], as: UTF8.self).contains(text) { return true }
                pending.removeSubrange(...newline)
            }
        }
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
