#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One line per event on standard error: time, level, node id, event name, then `key=value`s.
///
/// ```
/// 2026-11-29T12:00:00.123Z INFO  node=n1 event=started pub=tcp://127.0.0.1:7101
/// ```
public struct NodeLogger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }

        /// Parses `debug`, `info`, `warning` (or `warn`), `error`.
        public init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warning", "warn": self = .warning
            case "error": self = .error
            default: return nil
            }
        }
    }

    public let nodeID: String
    public let level: Level
    private let sink: @Sendable (String) -> Void

    /// A logger writing to standard error.
    public init(nodeID: String, level: Level = .info) {
        self.init(nodeID: nodeID, level: level, sink: NodeLogger.standardError)
    }

    /// A logger writing each line to `sink` (tests capture lines this way).
    public init(nodeID: String, level: Level, sink: @escaping @Sendable (String) -> Void) {
        self.nodeID = nodeID
        self.level = level
        self.sink = sink
    }

    public func debug(_ event: String, _ fields: [String: String] = [:]) { log(.debug, event, fields) }
    public func info(_ event: String, _ fields: [String: String] = [:]) { log(.info, event, fields) }
    public func warning(_ event: String, _ fields: [String: String] = [:]) { log(.warning, event, fields) }
    public func error(_ event: String, _ fields: [String: String] = [:]) { log(.error, event, fields) }

    public func log(_ level: Level, _ event: String, _ fields: [String: String]) {
        guard level >= self.level else { return }
        var line = "\(Self.timestamp()) \(level.description.uppercased().padding(to: 5)) node=\(nodeID) event=\(event)"
        for key in fields.keys.sorted() {
            line += " \(key)=\(Self.quoted(fields[key]!))"
        }
        sink(line + "\n")
    }

    private static func quoted(_ value: String) -> String {
        value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) || value.isEmpty
            ? "\"" + value.replacingAll("\"", with: "\\\"") + "\""
            : value
    }

    private static let writeLock = Mutex(())

    private static let standardError: @Sendable (String) -> Void = { line in
        writeLock.withLock { _ in
            var bytes = Array(line.utf8)
            _ = Glibc.write(2, &bytes, bytes.count)
        }
    }

    /// UTC time with milliseconds, e.g. `2026-11-29T12:00:00.123Z`.
    static func timestamp() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = Int(spec.tv_nsec / 1_000_000)
        let millisText = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millisText)Z"
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
