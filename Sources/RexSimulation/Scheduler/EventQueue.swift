/// A min-heap of events by (time, insertion order): ties run in the order they were scheduled,
/// so a run is a function of its seed.
struct EventQueue<Payload> {
    private struct Entry {
        let time: Duration
        let order: UInt64
        let payload: Payload

        func precedes(_ other: Entry) -> Bool { time < other.time || (time == other.time && order < other.order) }
    }

    private var entries: [Entry] = []
    private var nextOrder: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    /// When the earliest event is due.
    var firstTime: Duration? { entries.first?.time }

    mutating func push(_ payload: Payload, at time: Duration) {
        entries.append(Entry(time: time, order: nextOrder, payload: payload))
        nextOrder &+= 1
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest event.
    mutating func pop() -> (time: Duration, payload: Payload)? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let first = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { break }
            var smallest = left
            if left + 1 < entries.count, entries[left + 1].precedes(entries[left]) { smallest = left + 1 }
            guard entries[smallest].precedes(entries[parent]) else { break }
            entries.swapAt(smallest, parent)
            parent = smallest
        }
        return (first.time, first.payload)
    }

    mutating func removeAll() { entries.removeAll() }
}
