import Foundation
import RexFeeds

/// Monotonic nanoseconds (CLOCK_MONOTONIC, as the C baseline's now_ns()).
@inline(__always)
func nowNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Writes to stderr and exits with `code`.
func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("nodebench: \(message)\n".utf8))
    exit(code)
}

/// Writes one line to stderr (progress notes).
func note(_ message: String) {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
}

/// Prints one line to stdout and flushes (so a parent reading a pipe sees it at once).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
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

/// Spins (yielding the CPU) until `condition` holds or `timeout` seconds pass; returns whether it held.
func waitUntil(timeout: Double, pause microseconds: UInt32 = 0, _ condition: () -> Bool) -> Bool {
    let deadline = nowNanoseconds() + UInt64(timeout * 1e9)
    while !condition() {
        if nowNanoseconds() > deadline { return false }
        if microseconds > 0 { usleep(microseconds) } else { sched_yield() }
    }
    return true
}

/// CPU seconds (user + system) used so far by each thread of this process, summed by thread name
/// (from /proc/self/task/*/stat). Lets the benchmark say which side of a node pair costs what.
func threadCPUSeconds() -> [String: Double] {
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    var totals: [String: Double] = [:]
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    for task in tasks {
        guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
            let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
        else { continue }
        let name = String(stat[stat.index(after: open)..<close])
        // Fields after the name: state is field 3, utime field 14, stime field 15.
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
        totals[name, default: 0] += (user + system) / ticks
    }
    return totals
}
