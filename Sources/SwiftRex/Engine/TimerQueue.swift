/// The engine's timers, ordered by deadline, then by insertion order.
///
/// Cancellation is lazy: a timer names the registry generation it belongs to, and a timer whose
/// generation is gone is ignored when it fires. That keeps scheduling O(log n) and cancel O(1).
///
/// Two sources merged on pop, both of plain integers (`Place`), with the events apart in a slab:
/// - `run`, a FIFO of timers scheduled in deadline order. Most timers are `now + d` for one `d`
///   (100,000 follows settling at once), so they append here and pop in O(1), with no sift;
/// - `heap`, a min-heap for the timers that arrive out of order (a shorter delay after a longer).
/// Sifting moves places only: moving an entry that holds its event (and its key) retained and
/// released the key on every swap.
struct TimerQueue {
    struct Entry {
        let deadline: Duration
        let sequence: UInt64
        let event: TimerEvent
    }

    /// Where a timer stands in the order, and the slab index of its event.
    private struct Place {
        let deadline: Duration
        let sequence: UInt64
        let event: Int

        @inline(__always)
        func precedes(_ other: Place) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
        }
    }

    private var heap: [Place] = []
    private var run: [Place] = []
    /// The first place of `run` not popped yet.
    private var runHead = 0
    private var events: [TimerEvent?] = []
    private var freeEvents: [Int] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { count == 0 }
    var count: Int { heap.count + run.count - runHead }
    var earliest: Duration? { nextPlace?.place.deadline }

    mutating func schedule(at deadline: Duration, _ event: TimerEvent) {
        nextSequence &+= 1
        let place = Place(deadline: deadline, sequence: nextSequence, event: store(event))
        // The sequence only grows, so a deadline not before the run's last keeps the run sorted.
        if runHead == run.count || run[run.count - 1].deadline <= deadline {
            run.append(place)
        } else {
            heap.append(place)
            siftUp(heap.count - 1)
        }
    }

    /// Removes and returns the earliest timer if it is due at `now`.
    mutating func popDue(now: Duration) -> Entry? {
        guard let (place, fromRun) = nextPlace, place.deadline <= now else { return nil }
        if fromRun { popRun() } else { popHeap() }
        return Entry(deadline: place.deadline, sequence: place.sequence, event: take(place.event))
    }

    mutating func removeAll() {
        heap = []
        run = []
        runHead = 0
        events = []
        freeEvents = []
    }

    /// The earliest place of the two sources, and whether it heads the run.
    private var nextPlace: (place: Place, fromRun: Bool)? {
        let runFirst = runHead < run.count ? run[runHead] : nil
        guard let heapFirst = heap.first else { return runFirst.map { ($0, true) } }
        guard let runFirst else { return (heapFirst, false) }
        return runFirst.precedes(heapFirst) ? (runFirst, true) : (heapFirst, false)
    }

    private mutating func store(_ event: TimerEvent) -> Int {
        if let index = freeEvents.popLast() {
            events[index] = event
            return index
        }
        events.append(event)
        return events.count - 1
    }

    private mutating func take(_ index: Int) -> TimerEvent {
        let event = events[index]!
        events[index] = nil
        if isEmpty {
            // Nothing is pending: every slab slot is free. Small storage is kept for the next
            // timers; a burst's (100,000 settles) is given back.
            if events.capacity > 1024 {
                removeAll()
            } else {
                events.removeAll(keepingCapacity: true)
                freeEvents.removeAll(keepingCapacity: true)
            }
        } else {
            freeEvents.append(index)
        }
        return event
    }

    private mutating func popRun() {
        runHead += 1
        if runHead == run.count {
            run.removeAll(keepingCapacity: run.capacity <= 1024)
            runHead = 0
        } else if runHead >= 1024, runHead * 2 >= run.count {
            // Amortised O(1): at most as many places move as were popped since the last move.
            run.removeFirst(runHead)
            runHead = 0
        }
    }

    private mutating func popHeap() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        // A hole sifts down from the root; `last` drops into it where it belongs.
        var hole = 0
        let count = heap.count
        while true {
            let left = 2 * hole + 1
            guard left < count else { break }
            let right = left + 1
            let child = right < count && heap[right].precedes(heap[left]) ? right : left
            guard heap[child].precedes(last) else { break }
            heap[hole] = heap[child]
            hole = child
        }
        heap[hole] = last
    }

    private mutating func siftUp(_ index: Int) {
        let place = heap[index]
        var hole = index
        while hole > 0 {
            let parent = (hole - 1) / 2
            guard place.precedes(heap[parent]) else { break }
            heap[hole] = heap[parent]
            hole = parent
        }
        heap[hole] = place
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
