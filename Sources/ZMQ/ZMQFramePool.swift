import CZMQ

/// Receive slots for multipart messages: `zmq_msg_t` values at fixed heap addresses.
///
/// A `zmq_msg_t` must never be copied (it refcounts large payloads: a copy closed twice is a
/// double free), so each slot is allocated once, initialised with `zmq_msg_init`, and only ever
/// used through its pointer. `zmq_msg_recv` releases a slot's previous content itself, so a
/// steady-state receive loop allocates nothing. Owned by one ``ZMQSocket``; not thread-safe.
///
/// `buffers[i]` caches data pointer and size of slot `i` after each receive, so that
/// ``ZMQFrames`` (inlined into callers in other modules) needs no libzmq call per frame.
@usableFromInline
final class ZMQFramePool {
    /// Pointers to the slots; the slots themselves never move.
    // Unchecked exclusivity for the per-message hot path: the pool is confined to its socket's
    // thread and every access is a short, non-overlapping read or write.
    @exclusivity(unchecked) private(set) var slots: UnsafeMutablePointer<UnsafeMutablePointer<zmq_msg_t>>
    /// Data pointer and size of each received slot (valid until the slot's next receive).
    @usableFromInline
    @exclusivity(unchecked) private(set) var buffers: UnsafeMutablePointer<UnsafeRawBufferPointer>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var initialized = 0

    init() {
        capacity = 4
        slots = .allocate(capacity: capacity)
        buffers = .allocate(capacity: capacity)
    }

    /// Records the data of slot `index` after a successful receive.
    ///
    /// `reportedSize` is what `zmq_msg_recv` returned: the frame's size, capped at `Int32.max`.
    /// Using it saves a `zmq_msg_size` call per frame; only a frame of 2 GiB or more needs one.
    @inline(__always)
    func didReceive(_ index: Int, _ message: UnsafeMutablePointer<zmq_msg_t>, reportedSize: Int32) {
        let size = reportedSize == Int32.max ? zmq_msg_size(message) : Int(reportedSize)
        buffers[index] = UnsafeRawBufferPointer(start: zmq_msg_data(message), count: size)
    }

    /// The slot for frame `index`, creating it (and growing the table) on first use.
    @inline(__always)
    func slot(_ index: Int) -> UnsafeMutablePointer<zmq_msg_t> {
        if index < initialized { return slots[index] }
        return makeSlot(index)
    }

    private func makeSlot(_ index: Int) -> UnsafeMutablePointer<zmq_msg_t> {
        precondition(index == initialized, "Internal inconsistency: frame slots are filled in order")
        if initialized == capacity {
            let bigger = UnsafeMutablePointer<UnsafeMutablePointer<zmq_msg_t>>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: slots, count: initialized)  // moves pointers, not messages
            slots.deallocate()
            slots = bigger
            let biggerBuffers = UnsafeMutablePointer<UnsafeRawBufferPointer>.allocate(capacity: capacity * 2)
            biggerBuffers.moveInitialize(from: buffers, count: initialized)
            buffers.deallocate()
            buffers = biggerBuffers
            capacity *= 2
        }
        let message = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        zmq_msg_init(message)
        (slots + index).initialize(to: message)
        (buffers + index).initialize(to: UnsafeRawBufferPointer(start: nil, count: 0))
        initialized += 1
        return message
    }

    /// Drops the content of every slot (keeps the slots for reuse).
    func releaseMessages() {
        for index in 0..<initialized {
            zmq_msg_close(slots[index])
            zmq_msg_init(slots[index])
            buffers[index] = UnsafeRawBufferPointer(start: nil, count: 0)
        }
    }

    /// Closes and frees every slot; the pool must not be used afterwards.
    func deallocate() {
        for index in 0..<initialized {
            zmq_msg_close(slots[index])
            slots[index].deallocate()
        }
        initialized = 0
        slots.deallocate()
        buffers.deallocate()
    }
}
