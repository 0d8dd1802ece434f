import CZMQ

/// Waits until any of a set of sockets and raw file descriptors is ready (`zmq_poll`).
///
/// Register sockets and fds once, then call ``poll(timeout:)`` in the loop; the item array is
/// reused, so polling allocates nothing in steady state. A raw fd (an `eventfd` or pipe written
/// by other threads) is how an I/O thread that owns sockets gets woken for commands.
///
/// ```swift
/// let poller = ZMQPoller()
/// let data = try poller.register(sub, for: .readable)
/// let wake = poller.register(fileDescriptor: wakeFD, for: .readable)
/// while running {
///     guard try poller.poll(timeout: .milliseconds(100)) > 0 else { continue }
///     if poller.isReadable(data) { while let frames = try sub.tryReceiveMultipart() { … } }
///     if poller.isReadable(wake) { drainCommands() }
/// }
/// ```
///
/// `zmq_poll` costs O(registered items) per call (~0.7 ms for 1,000 sockets): prefer few sockets
/// carrying many subscriptions. Like its sockets, a poller belongs to one thread.
public final class ZMQPoller {
    /// Identifies one registered socket or file descriptor.
    public struct Token: Hashable, Sendable {
        /// Position in registration order.
        public let index: Int
    }

    private var items: UnsafeMutablePointer<zmq_pollitem_t>
    private var capacity: Int
    /// Number of registered items.
    public private(set) var count = 0
    /// Registered sockets (kept alive, and checked for closure before each poll); nil for raw fds.
    private var sockets: [ZMQSocket?] = []

    /// Creates an empty poller with room for `capacity` items before it grows.
    public init(capacity: Int = 4) {
        self.capacity = max(1, capacity)
        items = .allocate(capacity: self.capacity)
        sockets.reserveCapacity(self.capacity)
    }

    deinit { items.deallocate() }

    /// Registers a socket for the given events.
    /// - Throws: ``ZMQError/Code/socketClosed`` if the socket is already closed.
    @discardableResult
    public func register(_ socket: ZMQSocket, for events: ZMQPollEvents = .readable) throws(ZMQError) -> Token {
        let handle = try socket.liveHandle("register socket with poller")
        return append(zmq_pollitem_t(socket: handle, fd: 0, events: events.rawValue, revents: 0), socket: socket)
    }

    /// Registers a raw file descriptor (eventfd, pipe, socket) for the given events.
    @discardableResult
    public func register(fileDescriptor: Int32, for events: ZMQPollEvents = .readable) -> Token {
        append(zmq_pollitem_t(socket: nil, fd: fileDescriptor, events: events.rawValue, revents: 0), socket: nil)
    }

    /// Changes the events an item is polled for (e.g. add `.writable` only while output is pending).
    public func update(_ token: Token, for events: ZMQPollEvents) {
        precondition(token.index < count, "unknown poller token")
        items[token.index].events = events.rawValue
    }

    /// Removes every registration; tokens issued before become invalid.
    public func removeAll() {
        count = 0
        sockets.removeAll(keepingCapacity: true)
    }

    /// Waits until at least one item is ready or the timeout expires.
    ///
    /// - Parameter timeout: nil waits forever; `.zero` only checks. Rounded up to whole ms.
    /// - Returns: the number of ready items (0 on timeout); query them with ``readyEvents(_:)``.
    /// - Throws: ``ZMQError/Code/contextTerminated`` after ``ZMQContext/shutdown()``,
    ///   ``ZMQError/Code/socketClosed`` if a registered socket was closed.
    @discardableResult
    public func poll(timeout: Duration?) throws(ZMQError) -> Int {
        try poll(timeoutMilliseconds: timeout.map { Int($0 == .zero ? 0 : ZMQMilliseconds.from($0)) } ?? -1)
    }

    /// Like ``poll(timeout:)`` with a timeout in milliseconds (-1 waits forever).
    @discardableResult
    public func poll(timeoutMilliseconds: Int) throws(ZMQError) -> Int {
        for index in 0..<count {
            items[index].revents = 0
            if let socket = sockets[index] {
                // A closed socket's handle is freed memory for libzmq: never pass it on.
                guard socket.handle != nil else { throw ZMQCall.closedError("poll") }
            }
        }
        let items = self.items
        let count = Int32(count)
        return Int(
            try ZMQCall.check("zmq_poll", operation: "poll \(count) items") {
                zmq_poll(items, count, timeoutMilliseconds)
            })
    }

    /// The events that were ready for `token` in the last ``poll(timeout:)``.
    @inline(__always)
    public func readyEvents(_ token: Token) -> ZMQPollEvents {
        precondition(token.index < count, "unknown poller token")
        return ZMQPollEvents(rawValue: items[token.index].revents)
    }

    /// Whether `token` was readable in the last ``poll(timeout:)``.
    @inline(__always)
    public func isReadable(_ token: Token) -> Bool { readyEvents(token).contains(.readable) }

    /// Whether `token` was writable in the last ``poll(timeout:)``.
    @inline(__always)
    public func isWritable(_ token: Token) -> Bool { readyEvents(token).contains(.writable) }

    private func append(_ item: zmq_pollitem_t, socket: ZMQSocket?) -> Token {
        if count == capacity {
            let bigger = UnsafeMutablePointer<zmq_pollitem_t>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: items, count: count)
            items.deallocate()
            items = bigger
            capacity *= 2
        }
        (items + count).initialize(to: item)
        sockets.append(socket)
        count += 1
        return Token(index: count - 1)
    }
}

@available(*, unavailable, message: "a poller and its sockets belong to one thread")
extension ZMQPoller: Sendable {}
