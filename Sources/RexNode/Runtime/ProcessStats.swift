import Foundation

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
}
