import CZMQ

/// Receive slots for multipart messages: `zmq_msg_t` values at fixed heap addresses.
///
/// A `zmq_msg_t` must never be copied (it refcounts large payloads: a copy closed twice is a
/// double free), so each slot is allocated once, initialised with `zmq_msg_init`, and only ever
/// used through its pointer. `zmq_msg_recv` releases a slot's previous content itself, so a
/// steady-state receive loop allocates nothing. Owned by one ``ZMQSocket``; not thread-safe.
final class ZMQFramePool {
    /// Pointers to the slots; the slots themselves never move.
    private(set) var slots: UnsafeMutablePointer<UnsafeMutablePointer<zmq_msg_t>>
    private var capacity: Int
    private var initialized = 0

    init() {
        capacity = 4
        slots = .allocate(capacity: capacity)
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
            capacity *= 2
        }
        let message = UnsafeMutablePointer<zmq_msg_t>.allocate(capacity: 1)
        zmq_msg_init(message)
        (slots + index).initialize(to: message)
        initialized += 1
        return message
    }

    /// Drops the content of every slot (keeps the slots for reuse).
    func releaseMessages() {
        for index in 0..<initialized {
            zmq_msg_close(slots[index])
            zmq_msg_init(slots[index])
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
    }
}
