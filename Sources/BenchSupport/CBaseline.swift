import Foundation

/// The C baseline programs of `../shared/bench/zmq-baseline` (`thr.c`, `churn.c`), compiled with
/// gcc -O2 as its `run.sh` does, so a benchmark can run them next to its own figures.
public enum CBaseline {
    public static let programs = ["thr", "churn"]

    /// Compiles every program from `sourceDirectory` into `buildDirectory`; false when gcc fails.
    public static func build(from sourceDirectory: String, into buildDirectory: String) -> Bool {
        try? FileManager.default.createDirectory(atPath: buildDirectory, withIntermediateDirectories: true)
        for program in programs {
            let gcc = ChildProcess(
                executable: "/usr/bin/env",
                arguments: [
                    "gcc", "-O2", "-Wall", "-I", sourceDirectory, "-o", "\(buildDirectory)/\(program)",
                    "\(sourceDirectory)/\(program).c", "-lzmq", "-lpthread",
                ])
            gcc.start()
            let (_, status) = gcc.collectOutput(timeout: .seconds(60))
            if status != 0 { return false }
        }
        return true
    }
}
