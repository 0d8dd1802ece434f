/// A growable FIFO whose items are moved in and moved out, never copied.
///
/// The mailbox carries every action twice (append, then drain); an `Array` copies each item out
/// while iterating and destroys it again when emptied, which for an action with several strings
/// is a visible share of a store's per-action cost. Here `append` moves the item in and
/// `popFirst` moves it out: ownership passes through without a retain or release.
///
/// Inlinable (with its fields usable from inlinable code): every store's mailbox is one, and a
/// client module specialises it for its own action type instead of moving items through value
/// witnesses.
@usableFromInline
struct MoveQueue<Element>: ~Copyable {
    @usableFromInline var storage: UnsafeMutablePointer<Element>?
    @usableFromInline var capacity = 0
    /// Items live in `head..<end`.
    @usableFromInline var head = 0
    @usableFromInline var end = 0

    @inlinable init() {}

    @inlinable deinit {
        if let storage {
            (storage + head).deinitialize(count: end - head)
            storage.deallocate()
        }
    }

    @inlinable var count: Int { end - head }
    @inlinable var isEmpty: Bool { head == end }

    @inlinable mutating func append(_ element: consuming Element) {
        if end == capacity { grow() }
        (storage.unsafelyUnwrapped + end).initialize(to: element)
        end += 1
    }

    /// Moves the oldest item out; nil once empty (the capacity is kept for reuse).
    @inlinable mutating func popFirst() -> Element? {
        guard head < end else {
            head = 0
            end = 0
            return nil
        }
        let element = (storage.unsafelyUnwrapped + head).move()
        head += 1
        return element
    }

    /// Destroys every item left, keeping the capacity.
    @inlinable mutating func removeAll() {
        if let storage { (storage + head).deinitialize(count: end - head) }
        head = 0
        end = 0
    }

    /// Exchanges contents with `other` (both keep their own capacity).
    @inlinable mutating func swapContents(with other: inout MoveQueue) {
        swap(&storage, &other.storage)
        swap(&capacity, &other.capacity)
        swap(&head, &other.head)
        swap(&end, &other.end)
    }

    /// Out of line: it runs once per doubling, and keeps `append` small enough to inline.
    @inlinable @inline(never) mutating func grow() {
        let live = end - head
        let newCapacity = Swift.max(16, live * 2)
        let fresh = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if let storage {
            fresh.moveInitialize(from: storage + head, count: live)
            storage.deallocate()
        }
        storage = fresh
        capacity = newCapacity
        head = 0
        end = live
    }
}

// A `MoveQueue` cannot be copied, so it is the only owner of its storage: sending it to another
// thread hands over every item with it, and nothing else can reach them afterwards. Sendable
// items make it safe to send, exactly as an `Array` of them would be.
extension MoveQueue: @unchecked Sendable where Element: Sendable {}
