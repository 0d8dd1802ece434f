import Foundation

/// Monotonic nanoseconds (CLOCK_MONOTONIC, as the C baseline's now_ns(); comparable across processes).
func nowNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(truncatingIfNeeded: ts.tv_sec) &* 1_000_000_000 &+ UInt64(truncatingIfNeeded: ts.tv_nsec)
}

/// Writes to stderr and exits with `code`.
func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("actorbench: \(message)\n".utf8))
    exit(code)
}

/// Prints one line to stdout and flushes (a parent reading the pipe sees it at once).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Percentile (0…100) of sorted nanosecond samples, in microseconds (common.h pct_us).
func percentileMicroseconds(_ sorted: [UInt64], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let index = min(sorted.count - 1, Int((p / 100) * Double(sorted.count - 1) + 0.5))
    return Double(sorted[index]) / 1000
}

/// Parses `KEY=value` fields of a result line.
func field(_ key: String, in line: String) -> Double? {
    for part in line.split(separator: " ") where part.hasPrefix(key + "=") {
        return Double(part.dropFirst(key.count + 1))
    }
    return nil
}

/// The 16-byte argument of every measured call and message.
let benchPayload = [UInt8](repeating: 0x5A, count: 16)
