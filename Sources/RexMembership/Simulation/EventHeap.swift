/// A binary min-heap of simulation events by (time, insertion order): ties run in the order they
/// were scheduled, so a run is reproducible.
struct EventHeap<Payload> {
    struct Entry {
        var time: Duration
        var order: UInt64
        var payload: Payload
    }

    private var entries: [Entry] = []
    private var nextOrder: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    var firstTime: Duration? { entries.first?.time }

    mutating func push(_ payload: Payload, at time: Duration) {
        entries.append(Entry(time: time, order: nextOrder, payload: payload))
        nextOrder &+= 1
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(entries[child], entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let first = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { break }
            var smallest = left
            if left + 1 < entries.count, precedes(entries[left + 1], entries[left]) { smallest = left + 1 }
            guard precedes(entries[smallest], entries[parent]) else { break }
            entries.swapAt(smallest, parent)
            parent = smallest
        }
        return first
    }

    private func precedes(_ a: Entry, _ b: Entry) -> Bool { a.time < b.time || (a.time == b.time && a.order < b.order) }
}
