import Foundation

/// Monotonic nanoseconds (CLOCK_MONOTONIC, as the C baseline's now_ns()).
@inline(__always)
func nowNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    // Unchecked arithmetic, as C's unsigned now_ns(): this runs once per timed message.
    return UInt64(truncatingIfNeeded: ts.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: ts.tv_nsec)
}

/// The 12-byte topic frame used by the C baseline (common.h TOPIC).
let benchTopic = "node/a/state"

/// Writes to stderr and exits with `code`.
func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("zmqbench: \(message)\n".utf8))
    exit(code)
}

/// Prints one line to stdout and flushes (so a parent reading a pipe sees it at once).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Percentile (0…100) of sorted nanosecond samples, in microseconds (common.h pct_us).
func percentileMicroseconds(_ sorted: [UInt64], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let index = min(sorted.count - 1, Int((p / 100) * Double(sorted.count - 1) + 0.5))
    return Double(sorted[index]) / 1000
}

/// Entries in /proc/self/fd, minus the directory handle itself (common.h open_fds).
func openFileDescriptorCount() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0) - 1
}

/// Parses `KEY=value` fields of a result line.
func field(_ key: String, in line: String) -> String? {
    for part in line.split(separator: " ") where part.hasPrefix(key + "=") {
        return String(part.dropFirst(key.count + 1))
    }
    return nil
}
