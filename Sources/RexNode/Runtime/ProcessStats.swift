import Foundation
import RexCluster

/// Resource usage of this process, read from /proc.
enum ProcessStats {
    /// Resident set size in bytes.
    static var residentBytes: Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Open file descriptors.
    static var openFileDescriptors: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// User plus system CPU time in seconds: fields 14 and 15 of /proc/self/stat, in clock ticks.
    /// The fields are counted after the last `)`, since the command name in between may hold
    /// spaces and parentheses.
    static var cpuSeconds: Double? {
        guard let text = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After ")": field 3 (state) is the first, so utime (14) and stime (15) are at 11 and 12.
        let fields = text[text.index(after: close)...].split(separator: " ")
        let ticksPerSecond = sysconf(Int32(_SC_CLK_TCK))
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]), ticksPerSecond > 0 else {
            return nil
        }
        return Double(user + system) / Double(ticksPerSecond)
    }
}
