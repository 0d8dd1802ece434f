import Synchronization

/// A thread-safe log of what channel bodies and handlers did, for assertions.
final class Recorder: Sendable {
    private let entries = Mutex<[String]>([])

    func log(_ entry: String) { entries.withLock { $0.append(entry) } }

    var log: [String] { entries.withLock { $0 } }

    func count(_ entry: String) -> Int { entries.withLock { $0.filter { $0 == entry }.count } }

    func clear() { entries.withLock { $0.removeAll() } }
}
