import Synchronization

/// A thread-safe log of what channel bodies and handlers did, for assertions.
final class Recorder: Sendable {
    private let entries = Mutex<[String]>([])
    private let onEntry: (@Sendable (String) -> Void)?

    /// `onEntry` sees each entry as it is logged (to signal a test waiting for it).
    init(onEntry: (@Sendable (String) -> Void)? = nil) {
        self.onEntry = onEntry
    }

    func log(_ entry: String) {
        entries.withLock { $0.append(entry) }
        onEntry?(entry)
    }

    var log: [String] { entries.withLock { $0 } }

    func count(_ entry: String) -> Int { entries.withLock { $0.filter { $0 == entry }.count } }

    func clear() { entries.withLock { $0.removeAll() } }
}
