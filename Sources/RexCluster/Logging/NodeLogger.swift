import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One line per event on standard error: time, level, node id, event name, then the fields, as
/// `key=value` text or one JSON object (``LogFormat``).
///
/// ```
/// 2026-11-29T12:00:00.123Z INFO  node=n1 event=started pub=tcp://127.0.0.1:7101
/// ```
public struct NodeLogger: Sendable {
    /// How much a logger writes: a line of a lower level is dropped.
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        /// The levels, least severe first.
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

    /// The node every line names.
    public let nodeID: String
    /// The least severe level written.
    public let level: Level
    /// Text or JSON lines.
    public let format: LogFormat
    private let sink: @Sendable (String) -> Void
    private let clock: @Sendable () -> String

    /// A logger writing to standard error.
    public init(nodeID: String, level: Level = .info, format: LogFormat = .text) {
        self.init(nodeID: nodeID, level: level, format: format, sink: NodeLogger.standardError)
    }

    /// A logger writing each line to `sink` (tests capture lines this way), stamped by `clock`
    /// (default: the current UTC time, ``timestamp()``).
    public init(
        nodeID: String, level: Level, format: LogFormat = .text, sink: @escaping @Sendable (String) -> Void,
        clock: @escaping @Sendable () -> String = NodeLogger.timestamp
    ) {
        self.nodeID = nodeID
        self.level = level
        self.format = format
        self.sink = sink
        self.clock = clock
    }

    /// Writes `event` with `fields` at debug level.
    public func debug(_ event: String, _ fields: [String: String] = [:]) { log(.debug, event, fields) }
    /// Writes `event` with `fields` at info level.
    public func info(_ event: String, _ fields: [String: String] = [:]) { log(.info, event, fields) }
    /// Writes `event` with `fields` at warning level.
    public func warning(_ event: String, _ fields: [String: String] = [:]) { log(.warning, event, fields) }
    /// Writes `event` with `fields` at error level.
    public func error(_ event: String, _ fields: [String: String] = [:]) { log(.error, event, fields) }

    /// Writes one line, when `level` is at least the logger's.
    public func log(_ level: Level, _ event: String, _ fields: [String: String]) {
        guard level >= self.level else { return }
        sink(format.line(time: clock(), level: level, node: nodeID, event: event, fields: fields))
    }

    private static let writeLock = Mutex(())

    private static let standardError: @Sendable (String) -> Void = { line in
        writeLock.withLock { _ in
            var bytes = Array(line.utf8)
            _ = Glibc.write(2, &bytes, bytes.count)
        }
    }

    /// UTC time with milliseconds, e.g. `2026-11-29T12:00:00.123Z`.
    @Sendable public static func timestamp() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        var seconds = spec.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = Int(spec.tv_nsec / 1_000_000)
        let millisText = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millisText)Z"
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
