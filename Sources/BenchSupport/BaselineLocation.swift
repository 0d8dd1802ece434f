import Foundation

/// Where the C baseline programs (`../shared/bench/zmq-baseline`) are: `$ZMQ_BASELINE_DIR`, else
/// `../shared/bench/zmq-baseline` next to the repository the benchmark runs from, else the
/// workplace's shared folder.
public enum BaselineLocation {
    public static var defaultDirectory: String {
        if let explicit = ProcessInfo.processInfo.environment["ZMQ_BASELINE_DIR"] { return explicit }
        let beside = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            .appendingPathComponent("../shared/bench/zmq-baseline").standardized.path
        if FileManager.default.fileExists(atPath: beside + "/thr.c") { return beside }
        return "/work/shared/bench/zmq-baseline"
    }
}
