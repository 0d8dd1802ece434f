import Foundation
import XCTest

@testable import RexSimulation

/// Whole runs: the CI batch of seeds, replay by seed, and the replay command.
final class SimulationRunTests: XCTestCase {
    /// A batch of seeds with faults: every checker passes on each (the CI batch; run by the
    /// binary, so a failing seed's printed replay command gives the same run).
    func testABatchOfSeedsWithFaultsPassesEveryChecker() throws {
        let batch = try Self.rexsim(["--seeds", "1..12", "--nodes", "5", "--seconds", "40", "--settle", "15"])
        XCTAssertEqual(batch.status, 0, batch.output)
        XCTAssertTrue(batch.output.hasSuffix("12 passed, 0 failed\n"), batch.output)
    }

    /// Same seed, same history: the rexsim binary (which fixes Swift's hashing seed, as a replay
    /// needs: dictionaries' order depends on it) gives one trace hash for one seed over repeated
    /// runs in one process and in separate processes, and another hash for another seed.
    func testASeedReplaysBitForBit() throws {
        let flags = ["--nodes", "4", "--seconds", "15", "--settle", "5"]
        let repeated = try Self.rexsim(["--seed", "5", "--repeat", "3"] + flags)
        XCTAssertEqual(repeated.status, 0, repeated.output)
        XCTAssertTrue(repeated.output.contains("3 runs one hash"), repeated.output)
        let first = try Self.hash(of: Self.rexsim(["--seed", "5"] + flags))
        XCTAssertEqual(first, try Self.hash(of: Self.rexsim(["--seed", "5"] + flags)))
        XCTAssertNotEqual(first, try Self.hash(of: Self.rexsim(["--seed", "6"] + flags)))
    }

    /// A failing run's replay command reads back as the run it came from.
    func testTheReplayCommandReadsBackAsTheRun() {
        let config = SimulationConfig(seed: 77, nodes: 7, duration: .seconds(90), settle: .seconds(12), faults: false)
        XCTAssertEqual(config.commandLine, "swift run rexsim --seed 77 --nodes 7 --seconds 90 --settle 12 --no-faults")
    }

    /// The trace hash a `rexsim --seed` run printed.
    static func hash(of run: (status: Int32, output: String)) throws -> String {
        let line = try XCTUnwrap(run.output.split(separator: "\n").first { $0.contains(": PASS trace ") }, run.output)
        return String(line.split(separator: " ")[4])
    }

    static func rexsim(_ arguments: [String]) throws -> (status: Int32, output: String) {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("rexsim").path), directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        let process = Process()
        process.executableURL = directory.appendingPathComponent("rexsim")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_DETERMINISTIC_HASHING"] = nil
        process.environment = environment
        let pipe = Foundation.Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
