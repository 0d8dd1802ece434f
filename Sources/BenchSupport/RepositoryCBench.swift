import Foundation

/// The repository's own C benchmark programs (`deploy/bench/<name>.c`), built with gcc -O2 like
/// the shared baseline, for figures that baseline has no program for.
public enum RepositoryCBench {
    /// `deploy/bench` of the repository this executable was built in: `$REX_BENCH_C_DIR`, else the
    /// first folder above the executable (`.build/…/release/x`) that holds `Package.swift`.
    public static var directory: String? {
        if let explicit = ProcessInfo.processInfo.environment["REX_BENCH_C_DIR"] { return explicit }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var folder = URL(fileURLWithPath: exe).deletingLastPathComponent()
        for _ in 0..<8 {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                return folder.appendingPathComponent("deploy/bench").path
            }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    /// Compiles `<directory>/<program>.c` into `<buildDirectory>/<program>`; false when it cannot.
    public static func build(_ program: String, into buildDirectory: String) -> Bool {
        guard let directory, FileManager.default.fileExists(atPath: "\(directory)/\(program).c") else { return false }
        try? FileManager.default.createDirectory(atPath: buildDirectory, withIntermediateDirectories: true)
        let gcc = ChildProcess(
            executable: "/usr/bin/env",
            arguments: ["gcc", "-O2", "-Wall", "-o", "\(buildDirectory)/\(program)", "\(directory)/\(program).c", "-lzmq", "-lpthread"])
        gcc.start()
        let (_, status) = gcc.collectOutput(timeout: .seconds(60))
        return status == 0
    }
}
