import RexCluster

/// Messages published during one reactor turn, encoded back to back until the turn ends.
///
/// Why: libzmq flushes its pipe on every complete message and wakes its I/O thread whenever that
/// thread had caught up. A node spends a whole store pipeline per published message, so its I/O
/// thread always catches up and wakes for a handful of messages each time (measured: one TCP
/// `sendto` per ~11 messages and ~0.35 syscalls per message on that thread alone). Handing the
/// turn's messages to libzmq in one tight loop lets the I/O thread find many per wake-up.
///
/// Layout of each entry: head length (UInt32), head frame, value length (UInt32), value frame.
struct Outbox: ~Copyable {
    private var storage: UnsafeMutableRawBufferPointer
    private var used = 0
    /// Messages waiting.
    private(set) var count = 0
    private let initialCapacity: Int

    init(capacity: Int = 16 * 1024) {
        initialCapacity = capacity
        storage = .allocate(byteCount: capacity, alignment: MemoryLayout<UInt32>.alignment)
    }

    deinit {
        storage.deallocate()
    }

    /// Bytes waiting (encoded heads and values with their lengths).
    var byteCount: Int { used }

    var isEmpty: Bool { count == 0 }

    /// Appends one message: its head is written by `encodeHead` into at most `headCapacity`
    /// bytes (it returns the length written), then the value's bytes are copied.
    mutating func append(
        headCapacity: Int, value: UnsafeRawBufferPointer, encodeHead: (UnsafeMutableRawBufferPointer) -> Int
    ) {
        precondition(value.count <= Int(UInt32.max), "a message value of \(value.count) bytes does not fit the outbox")
        reserve(2 * MemoryLayout<UInt32>.size + headCapacity + value.count)
        let headStart = used + MemoryLayout<UInt32>.size
        let headLength = encodeHead(UnsafeMutableRawBufferPointer(rebasing: storage[headStart..<(headStart + headCapacity)]))
        precondition(headLength >= 0 && headLength <= headCapacity, "a head frame overran its reserved space")
        storage.storeBytes(of: UInt32(truncatingIfNeeded: headLength), toByteOffset: used, as: UInt32.self)
        var offset = headStart + headLength
        storage.storeBytes(of: UInt32(truncatingIfNeeded: value.count), toByteOffset: offset, as: UInt32.self)
        offset += MemoryLayout<UInt32>.size
        if value.count > 0 {
            UnsafeMutableRawBufferPointer(rebasing: storage[offset..<(offset + value.count)]).copyMemory(from: value)
        }
        used = offset + value.count
        count += 1
    }

    /// Calls `body` with each message's head and value, oldest first, then empties the outbox
    /// (keeping its capacity, unless one large burst grew it past `retainedCapacity`).
    mutating func drain(_ body: (_ head: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void) {
        let base = UnsafeRawBufferPointer(storage)
        var offset = 0
        while offset < used {
            let headLength = Int(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            offset += MemoryLayout<UInt32>.size
            let head = UnsafeRawBufferPointer(rebasing: base[offset..<(offset + headLength)])
            offset += headLength
            let valueLength = Int(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            offset += MemoryLayout<UInt32>.size
            let value = UnsafeRawBufferPointer(rebasing: base[offset..<(offset + valueLength)])
            offset += valueLength
            body(head, value)
        }
        used = 0
        count = 0
        if storage.count > Self.retainedCapacity {
            storage.deallocate()
            storage = .allocate(byteCount: initialCapacity, alignment: MemoryLayout<UInt32>.alignment)
        }
    }

    /// Beyond this, the space a burst needed is given back after it was sent.
    static let retainedCapacity = 1 << 20

    private mutating func reserve(_ extra: Int) {
        guard used + extra > storage.count else { return }
        let grown = UnsafeMutableRawBufferPointer.allocate(
            byteCount: max(storage.count * 2, used + extra), alignment: MemoryLayout<UInt32>.alignment
        )
        grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[..<used]))
        storage.deallocate()
        storage = grown
    }
}
