/// A node's simulated disk under its journal: one append-only file whose bytes are written
/// first (lost by a crash) and durable only once an fsync that covers them completes, with a
/// latency the nemesis can slow; a capacity that can fill; and a crash that keeps a random
/// prefix of what was never fsync'd — the torn last write a real power cut or `kill -9` during
/// a write leaves.
///
/// It outlives the node's processes: a restart reads what the crash left.
final class SimDisk {
    /// Why a write failed.
    struct Full: Error, CustomStringConvertible {
        let capacity: Int
        var description: String { "no space left on device (capacity \(capacity) bytes)" }
    }

    /// Bytes on stable storage, then bytes written since the last completed fsync.
    private(set) var durable: [UInt8] = []
    private(set) var pending: [UInt8] = []
    /// nil: unlimited; otherwise a write that would pass it fails.
    var capacity: Int?
    /// How long an fsync takes.
    var fsyncLatency: Duration = .milliseconds(2)
    /// Called once at the next fsync's start with its latency (the nemesis crashes the node
    /// inside that window), then cleared.
    var onNextFsync: ((Duration) -> Void)?
    /// Counters for the report.
    private(set) var fsyncs = 0
    private(set) var tornBytesKept = 0
    private(set) var bytesLost = 0

    /// What a read of the file returns now.
    var contents: [UInt8] { durable + pending }
    var size: Int { durable.count + pending.count }

    /// Appends `bytes` at the end of the file (not yet durable).
    func append(_ bytes: [UInt8]) throws(Full) {
        if let capacity, size + bytes.count > capacity { throw Full(capacity: capacity) }
        pending.append(contentsOf: bytes)
    }

    /// Starts an fsync of everything written so far; returns how many pending bytes it covers
    /// (pass them to ``completeFsync(covering:)`` when its latency has passed).
    func beginFsync() -> Int {
        fsyncs += 1
        if let hook = onNextFsync {
            onNextFsync = nil
            hook(fsyncLatency)
        }
        return pending.count
    }

    /// The fsync covering the first `count` pending bytes completed: they are durable.
    func completeFsync(covering count: Int) {
        let count = min(count, pending.count)
        durable.append(contentsOf: pending[..<count])
        pending.removeFirst(count)
    }

    /// The machine crashed: of the bytes never fsync'd, the first `keep` reached the platter
    /// (a torn write when it stops inside a record), the rest are gone.
    func crash(keeping keep: Int) {
        let kept = min(max(keep, 0), pending.count)
        durable.append(contentsOf: pending[..<kept])
        tornBytesKept += kept
        bytesLost += pending.count - kept
        pending = []
    }

    /// Cuts the file to `length` bytes (a recovery dropping a torn tail), made durable at once.
    func truncate(to length: Int) {
        let all = contents
        durable = Array(all.prefix(length))
        pending = []
    }
}
