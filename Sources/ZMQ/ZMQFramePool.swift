import CZMQ

/// Receive slots for multipart messages: `zmq_msg_t` values at fixed heap addresses.
///
/// A `zmq_msg_t` must never be copied (it refcounts large payloads: a copy closed twice is a
/// double free), so each slot is allocated once, initialised with `zmq_msg_init`, and only ever
/// used through its pointer. `zmq_msg_recv` releases a slot's previous content itself, so a
/// steady-state receive loop allocates nothing. Owned by one ``ZMQSocket``; not thread-safe.
///
/// `buffers[i]` caches data pointer and size of frame `i` of the last message received, so that
/// ``ZMQFrames`` (inlined into callers in other modules) needs no libzmq call per frame.
///
/// The receive loop is inlined into client modules, which do not see CZMQ: so slots travel as
/// raw pointers (each points to memory bound to `zmq_msg_t`), and the per-frame libzmq calls are
/// the small `@usableFromInline` functions at the end.
@usableFromInline
final class ZMQFramePool {
    // Unchecked exclusivity for the per-message hot path: the pool is confined to its socket's
    // thread and every access is a short, non-overlapping read or write.

    /// Pointers to the slots; the slots themselves never move.
    @usableFromInline
    @exclusivity(unchecked) private(set) var slots: UnsafeMutablePointer<UnsafeMutableRawPointer>
    /// Data pointer and size of each frame of the last message (valid until the next receive).
    @usableFromInline
    @exclusivity(unchecked) private(set) var buffers: UnsafeMutablePointer<UnsafeRawBufferPointer>
    /// Slots created so far (`slots[0..<initialized]`).
    @usableFromInline
    @exclusivity(unchecked) private(set) var initialized = 0
    @exclusivity(unchecked) private var capacity: Int

    init() {
        capacity = 4
        slots = .allocate(capacity: capacity)
        buffers = .allocate(capacity: capacity)
    }

    /// The slot for frame `index`, creating it (and growing the table) on first use.
    @inlinable
    @inline(__always)
    func slot(_ index: Int) -> UnsafeMutableRawPointer {
        if _fastPath(index < initialized) { return slots[index] }
        return makeSlot(index)
    }

    /// Records the data of slot `index` after a successful receive.
    ///
    /// `reportedSize` is what `zmq_msg_recv` returned: the frame's size, capped at `Int32.max`.
    /// Using it saves a `zmq_msg_size` call per frame; only a frame of 2 GiB or more needs one.
    @inlinable
    @inline(__always)
    func didReceive(_ index: Int, _ message: UnsafeMutableRawPointer, reportedSize: Int32) {
        let size = reportedSize == Int32.max ? Self.size(message) : Int(reportedSize)
        buffers[index] = UnsafeRawBufferPointer(start: Self.data(message), count: size)
    }

    /// Called when a message of `count` frames is complete (its views stay valid): swaps the
    /// first and the last slot, so the next message's first frame lands on this message's last.
    ///
    /// `zmq_msg_recv` releases what its slot held. The last frame is usually the payload, the one
    /// holding libzmq memory (a heap block, or a share of an ipc/tcp receive buffer); released one
    /// whole message later, libzmq cannot recycle that buffer and mallocs another. Released by the
    /// next first frame, it goes back as early as in a C loop reusing one `zmq_msg_t`.
    @inlinable
    @inline(__always)
    func didReceiveMessage(_ count: Int) {
        guard count > 1 else { return }
        let first = slots[0]
        slots[0] = slots[count - 1]
        slots[count - 1] = first
    }

    @usableFromInline
    @inline(never)
    func makeSlot(_ index: Int) -> UnsafeMutableRawPointer {
        precondition(index == initialized, "Internal inconsistency: frame slots are filled in order")
        if initialized == capacity {
            let bigger = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: capacity * 2)
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
        (slots + index).initialize(to: UnsafeMutableRawPointer(message))
        (buffers + index).initialize(to: UnsafeRawBufferPointer(start: nil, count: 0))
        initialized += 1
        return UnsafeMutableRawPointer(message)
    }

    /// Drops the content of every slot (keeps the slots for reuse).
    func releaseMessages() {
        for index in 0..<initialized {
            zmq_msg_close(Self.message(slots[index]))
            zmq_msg_init(Self.message(slots[index]))
            buffers[index] = UnsafeRawBufferPointer(start: nil, count: 0)
        }
    }

    /// Closes and frees every slot; the pool must not be used afterwards.
    func deallocate() {
        for index in 0..<initialized {
            zmq_msg_close(Self.message(slots[index]))
            Self.message(slots[index]).deallocate()
        }
        initialized = 0
        slots.deallocate()
        buffers.deallocate()
    }

    // MARK: libzmq calls on one slot (reachable from the inlined receive loop)

    /// The slot's message; its memory is bound to `zmq_msg_t` by ``makeSlot(_:)``.
    @inline(__always)
    static func message(_ slot: UnsafeMutableRawPointer) -> UnsafeMutablePointer<zmq_msg_t> {
        slot.assumingMemoryBound(to: zmq_msg_t.self)
    }

    /// `zmq_msg_recv` into `slot`: the frame's size (capped at `Int32.max`), or -1 with errno set.
    @usableFromInline
    static func receive(_ slot: UnsafeMutableRawPointer, from socket: UnsafeMutableRawPointer, flags: Int32) -> Int32 {
        zmq_msg_recv(message(slot), socket, flags)
    }

    /// `zmq_msg_data` of `slot`.
    @usableFromInline
    static func data(_ slot: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        zmq_msg_data(message(slot))
    }

    /// `zmq_msg_size` of `slot`.
    @usableFromInline
    static func size(_ slot: UnsafeMutableRawPointer) -> Int {
        zmq_msg_size(message(slot))
    }

    /// Whether more frames of the same message follow `slot` (`zmq_msg_more`, without its extra hop).
    @usableFromInline
    static func hasMore(_ slot: UnsafeMutableRawPointer) -> Bool {
        zmq_msg_get(message(slot), ZMQ_MORE) != 0
    }
}
