import RexCluster

/// What travels on a pipe: a data message (live, or a snapshot answer for one route of the
/// requesting socket), a subscription frame going up to a publisher, or membership bytes.
enum Frame {
    case data(Received, snapshotRoute: RouteID?)
    case subscribe(TopicPattern)
    case unsubscribe(TopicPattern)
    case snapshotRequest(RouteID, TopicPattern, requester: UInt64)
    case membership([UInt8])
}

/// One direction of one connection: a FIFO from node `from` to node `to` with a high-water mark,
/// as a ZeroMQ pipe and the TCP stream under it. Nothing is reordered: a message is ready no
/// earlier than the one before it. Past `highWaterMark` waiting messages, a new one is dropped
/// (as a PUB drops for a slow subscriber). A cut direction or a paused receiver stalls the pipe
/// (TCP holds the bytes); closing it drops what waits.
final class SimPipe {
    let from: Int
    let to: Int
    let highWaterMark: Int
    /// What the receiving side does with a frame (runs in the loop, not on an executor).
    var receive: (Frame) -> Void = { _ in }
    private(set) var queue: [(ready: Duration, frame: Frame)] = []
    private var head = 0
    var lastReady: Duration = .zero
    /// A delivery event is scheduled, or the pipe waits in the network's stalled list.
    var pumping = false
    private(set) var closed = false

    init(from: Int, to: Int, highWaterMark: Int) {
        self.from = from
        self.to = to
        self.highWaterMark = highWaterMark
    }

    var waiting: Int { queue.count - head }
    var isFull: Bool { waiting >= highWaterMark }
    var first: (ready: Duration, frame: Frame)? { head < queue.count ? queue[head] : nil }

    func append(_ frame: Frame, ready: Duration) {
        queue.append((ready, frame))
        lastReady = ready
    }

    func popFirst() -> Frame {
        let frame = queue[head].frame
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 256, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return frame
    }

    /// Drops what waits; returns how many frames.
    @discardableResult
    func close() -> Int {
        let dropped = waiting
        closed = true
        queue.removeAll()
        head = 0
        return dropped
    }
}
