import BenchSupport
import Foundation
import RexFeeds

/// The C baseline (`thr.c`, `churn.c`), compiled with gcc -O2 into a temporary directory and run
/// as child processes in the same run as the node benchmarks, as zmqbench does.
struct Baseline {
    var sourceDirectory = BaselineLocation.defaultDirectory
    var buildDirectory = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/nodebench-c"

    /// Compiles thr.c and churn.c; false (with a message) when that fails.
    func build() -> Bool {
        guard CBaseline.build(from: sourceDirectory, into: buildDirectory) else {
            note("nodebench: cannot build the C baseline from \(sourceDirectory); node figures only")
            return false
        }
        return true
    }

    /// `thr tcp 16 <count> 0`: raw PUB→SUB messages per second.
    func throughput(count: Int) -> Double? {
        run("thr", ["tcp", "16", "\(count)", "0"], metric: "msg_s")
    }

    /// Builds the repository's own `retarget.c` (deploy/bench) next to the shared programs.
    func buildRetarget() -> Bool {
        guard RepositoryCBench.build("retarget", into: buildDirectory) else {
            note("nodebench: cannot build deploy/bench/retarget.c; the shared-follow churn has no raw figure")
            return false
        }
        return true
    }

    /// `retarget <snap4|manual2> <follows> <seconds>`: raw re-targets per second of that many
    /// subscriptions of one SUB, each answered with a snapshot (snap4: the node's protocol).
    func retarget(_ mode: String, follows: Int, seconds: Double) -> Double? {
        run("retarget", [mode, "\(follows)", "\(seconds)"], metric: "changes_s")
    }

    /// `churn recreate <cycles> xpub`: SUB socket recreate cycles per second.
    func recreate(cycles: Int) -> Double? {
        run("churn", ["recreate", "\(cycles)", "xpub"], metric: "cycles_s")
    }

    private func run(_ program: String, _ arguments: [String], metric: String) -> Double? {
        let child = ChildProcess(executable: "\(buildDirectory)/\(program)", arguments: arguments)
        child.start()
        let (output, status) = child.collectOutput(timeout: .seconds(120))
        let line = output.split(separator: "\n").last.map(String.init) ?? ""
        guard status == 0, let text = field(metric, in: line), let value = Double(text) else {
            note("  c \(program) \(arguments.joined(separator: " ")): FAILED (status \(status.map(String.init) ?? "killed")) \(output)")
            return nil
        }
        note("  c     \(program) \(arguments.joined(separator: " ")): \(grouped(value)) \(metric)")
        return value
    }
}
