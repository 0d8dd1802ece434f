import Foundation

/// A child process whose stdout is read line by line and which exits when we close its stdin.
///
/// Mirrors the C baseline's `fork_child` (the child dies with its parent): the child side calls
/// ``ChildProcess/exitWhenParentGoes()``, which exits as soon as stdin reaches EOF — that is,
/// when the parent closes the pipe or dies.
public final class ChildProcess {
    private let process = Process()
    private let stdinPipe = Pipe()
    private let stdoutPipe = Pipe()
    private var buffer: [UInt8] = []

    public init(executable: String, arguments: [String], environment: [String: String]? = nil) {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = FileHandle.standardError
    }

    /// Starts this executable (`/proc/self/exe`) with `arguments`.
    public static func spawnSelf(_ arguments: [String]) -> ChildProcess {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let child = ChildProcess(executable: exe, arguments: arguments)
        child.start()
        return child
    }

    public func start() {
        do { try process.run() } catch {
            let program = URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
            FileHandle.standardError.write(Data("\(program): cannot start \(process.executableURL?.path ?? "?"): \(error)\n".utf8))
            exit(2)
        }
    }

    /// The next stdout line (blocking), or nil at EOF.
    public func readLine() -> String? {
        let fd = stdoutPipe.fileHandleForReading.fileDescriptor
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return buffer.isEmpty ? nil : String(decoding: buffer, as: UTF8.self) }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Reads stdout to EOF, waiting at most `timeout`; kills the child if it runs longer.
    public func collectOutput(timeout: Duration) -> (output: String, exitCode: Int32?) {
        let pid = process.processIdentifier
        let done = DispatchSemaphore(value: 0)
        let (seconds, _) = timeout.components
        Thread.detachNewThread {
            if done.wait(timeout: .now() + .seconds(Int(seconds))) == .timedOut { kill(pid, SIGKILL) }
        }
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        done.signal()
        finish(grace: .seconds(3))
        return (lines.joined(separator: "\n"), process.isRunning ? nil : process.terminationStatus)
    }

    /// Closes the child's stdin (it exits), waits up to `grace`, then kills it (common.h reap_child).
    public func finish(grace: Duration) {
        try? stdinPipe.fileHandleForWriting.close()
        let deadline = ContinuousClock.now + grace
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Child side: exit as soon as stdin reaches EOF (parent closed it or died).
    public static func exitWhenParentGoes() {
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let n = read(0, &byte, 1)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { exit(0) }
            }
        }
    }
}
