import RexCluster
import RexControl

/// The keys a reducer changed, newest last, bounded: it keeps at least the last `capacity` keys
/// (at most twice as many, plus two chunks), and a reader that fell further behind is told so
/// (nil) and walks.
///
/// Stored in chunks of `chunkSize` keys, of which only the newest is ever written: the store
/// publishes every batch's state, so the log is shared when the next batch records its first key,
/// and copy-on-write then copies one chunk and the list of chunks, not every key held. (One flat
/// array of 16,384–32,768 keys was copied whole once per batch: a third of the reactor's time in
/// a follow-topic churn.)
public struct KeyChangeLog: Sendable {
    /// Keys per chunk: what a batch's first `record` copies at most.
    static let chunkSize = 128

    /// Bumped by every `record`.
    public private(set) var revision: UInt64 = 0
    /// Full chunks, oldest first; never written again, only dropped from the front.
    private var sealed: [[String]] = []
    /// The newest keys, fewer than `chunkSize`.
    private var open: [String] = []
    /// How many of the latest keys the log keeps at least.
    public let capacity: Int

    /// An empty log keeping at least the last `capacity` keys (at least 1).
    public init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// Keys held (`capacity` to twice that once that many were recorded).
    public var count: Int { sealed.count * Self.chunkSize + open.count }

    /// Records that `key` was added, removed or changed in what its channels read.
    public mutating func record(_ key: String) {
        if open.isEmpty { open.reserveCapacity(Self.chunkSize) }
        open.append(key)
        revision &+= 1
        guard open.count == Self.chunkSize else { return }
        sealed.append(open)
        open = []
        // Whole chunks go, oldest first, while at least `capacity` keys stay.
        let surplus = (count - capacity) / Self.chunkSize
        if count >= 2 * capacity, surplus > 0 { sealed.removeFirst(min(surplus, sealed.count)) }
    }

    /// The keys recorded after revision `seen`, oldest first, or nil when some of them left the
    /// log (or `seen` is not a revision of this log). Usually one batch's keys, from the open
    /// chunk without a copy; a span across chunks is gathered into one array.
    public func ids(after seen: UInt64) -> ArraySlice<String>? {
        guard seen <= revision else { return nil }
        let missing = revision - seen
        guard missing <= UInt64(count) else { return nil }
        let wanted = Int(missing)
        if wanted <= open.count { return open[(open.count - wanted)...] }
        var gathered: [String] = []
        gathered.reserveCapacity(wanted)
        var skip = count - wanted
        for chunk in sealed {
            if skip >= chunk.count {
                skip -= chunk.count
                continue
            }
            gathered.append(contentsOf: chunk[skip...])
            skip = 0
        }
        gathered.append(contentsOf: open)
        return gathered[...]
    }
}
