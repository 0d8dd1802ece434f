/// A min-heap of engine timers ordered by deadline, then by insertion order.
///
/// Cancellation is lazy: a timer names the registry generation it belongs to, and a timer whose
/// generation is gone is ignored when it fires. That keeps scheduling O(log n) and cancel O(1).
struct TimerQueue {
    struct Entry {
        let deadline: Duration
        let sequence: UInt64
        let event: TimerEvent
    }

    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }
    var earliest: Duration? { heap.first?.deadline }

    mutating func schedule(at deadline: Duration, _ event: TimerEvent) {
        nextSequence &+= 1
        heap.append(Entry(deadline: deadline, sequence: nextSequence, event: event))
        siftUp(heap.count - 1)
    }

    /// Removes and returns the earliest timer if it is due at `now`.
    mutating func popDue(now: Duration) -> Entry? {
        guard let first = heap.first, first.deadline <= now else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return first
    }

    mutating func removeAll() { heap.removeAll() }

    private func precedes(_ a: Entry, _ b: Entry) -> Bool {
        a.deadline < b.deadline || (a.deadline == b.deadline && a.sequence < b.sequence)
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, precedes(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count, precedes(heap[right], heap[smallest]) { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

/// What an engine timer does when it fires; each names the run it belongs to.
enum TimerEvent {
    /// Start a delayed or debounced one-shot run.
    case startPending(key: AnyHashableSendable, generation: UInt64)
    /// Open a channel whose settle window has passed.
    case openSettled(key: AnyHashableSendable, generation: UInt64)
    /// Deliver a debounced value into a live channel.
    case deliverDebounced(key: AnyHashableSendable, generation: UInt64, sequence: UInt64)
    /// Deliver the latest value dropped in a `.throttle(_, latest: true)` window.
    case deliverThrottleTrailing(key: AnyHashableSendable, generation: UInt64)
}
