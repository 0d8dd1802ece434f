import Synchronization

/// Collects what a ``CallTargets`` probe calls: the remote call of a probe reference lands here
/// instead of on a transport (the task-local recorder belongs to the registering task).
final class ProbeRecorder: Sendable {
    @TaskLocal static var current: ProbeRecorder?

    private let records = Mutex<[ProbeRecord]>([])

    func record(_ record: ProbeRecord) {
        records.withLock { $0.append(record) }
    }

    var recorded: [ProbeRecord] { records.withLock { $0 } }

    /// Thrown by a probe's remote call once recorded: nothing is sent.
    struct Recorded: Error {}
}
