import CZMQ

/// A libzmq socket owned by exactly one thread.
///
/// libzmq sockets are not thread-safe, so `ZMQSocket` is deliberately **not** `Sendable`: create
/// it on the thread (or in the task) that uses it, or hand it over once with `sending`. Never
/// use it from an actor or a Swift concurrency task that blocks; give each socket owner its own
/// `Thread` and wake it with a ``ZMQPoller`` over a wake-up file descriptor.
///
/// Every socket is created with linger 0, and SUB/XSUB sockets with a send high-water mark of 0
/// (unlimited): subscriptions are messages that libzmq otherwise drops silently once ~1000 are
/// queued. Set all other options **before** `bind`/`connect`: a listener keeps the options it saw
/// at bind time.
///
/// ```swift
/// let sub = try context.socket(.sub)
/// try sub.setOption(.receiveTimeout, .seconds(1))
/// try sub.connect("tcp://127.0.0.1:7101")
/// try sub.subscribe("node/a/")
/// let frames = try sub.receiveMultipart()
/// sub.close()
/// ```
///
/// ## Closing
/// Call ``close()`` explicitly, on the owner thread, when the socket is no longer needed. If the
/// last reference goes away first, `deinit` closes it; that is correct as long as the socket was
/// never shared (which its non-Sendable type enforces), but explicit close keeps the moment of
/// release predictable and lets ``ZMQContext/terminate(timeout:)`` finish.
public final class ZMQSocket {
    /// The socket's messaging pattern.
    public let kind: ZMQSocketKind
    /// The context this socket belongs to (kept alive until the socket is closed).
    public let context: ZMQContext
    /// The libzmq socket, or nil once closed.
    ///
    /// Unchecked exclusivity: read on every send/receive, written only by `close()`; the socket
    /// is confined to one thread (non-Sendable) and no access ever overlaps another.
    /// `@usableFromInline` for the inlined send fast path.
    @usableFromInline @exclusivity(unchecked) var handle: UnsafeMutableRawPointer?
    /// Message slots for zero-copy multipart receive (fixed addresses, never copied).
    @usableFromInline let frames = ZMQFramePool()

    /// The most frames a receive hands over: the frames of a longer message past this many are
    /// received and released one by one into a single slot, and the message is reported with
    /// `receiveFrameLimit + 1` frames (the last one being its last frame). libzmq itself puts no
    /// bound on the frames of one message, so a peer could otherwise make the receiver keep one
    /// slot per frame of its longest message. Unlimited by default.
    @usableFromInline @exclusivity(unchecked) var frameLimit = Int.max

    /// See `frameLimit`: a message of more than this many frames arrives as this many plus one.
    public var receiveFrameLimit: Int {
        get { frameLimit }
        set { frameLimit = max(1, newValue) }
    }

    /// Creates a socket of `kind` in `context` (linger 0; SUB/XSUB also send-HWM 0).
    ///
    /// - Throws: ``ZMQError/Code/tooManySockets`` at the context's socket limit,
    ///   ``ZMQError/Code/contextTerminated`` after ``ZMQContext/shutdown()``.
    public init(_ context: ZMQContext, kind: ZMQSocketKind) throws(ZMQError) {
        self.context = context
        self.kind = kind
        let handle = try context.makeSocketHandle(type: kind.rawValue, kind: kind)
        self.handle = handle
        do {
            try setOption(.linger, .zero)
            if kind == .sub || kind == .xsub {
                try setOption(.sendHighWaterMark, 0)
            }
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
        frames.deallocate()
    }

    /// Whether ``close()`` has been called.
    public var isClosed: Bool { handle == nil }

    /// Closes the socket; later calls do nothing. Pending outgoing messages are discarded (linger 0).
    ///
    /// Call it on the owner thread. `zmq_close` returns at once; libzmq's reaper thread finishes
    /// the teardown (and releases the socket's file descriptors) shortly afterwards.
    public func close() {
        guard let handle else { return }
        self.handle = nil
        frames.releaseMessages()
        zmq_close(handle)
        context.socketDidClose()
    }

    /// The live handle, or the error for a closed socket.
    @inline(__always)
    func liveHandle(_ operation: @autoclosure () -> String) throws(ZMQError) -> UnsafeMutableRawPointer {
        guard let handle else { throw ZMQCall.closedError(operation()) }
        return handle
    }

    // MARK: endpoints

    /// Binds to `endpoint`, e.g. `tcp://127.0.0.1:*`, `ipc:///tmp/node.sock`, `inproc://name`.
    ///
    /// Use port `*` (or `!`) to let the system choose, then read ``lastEndpoint``.
    /// - Throws: ``ZMQError/Code/addressInUse``, ``ZMQError/Code/invalidEndpoint``,
    ///   ``ZMQError/Code/protocolNotSupported``, …
    public func bind(_ endpoint: String) throws(ZMQError) {
        let handle = try liveHandle("bind \(endpoint)")
        _ = try ZMQCall.check("zmq_bind", operation: "bind \(endpoint)") { zmq_bind(handle, endpoint) }
    }

    /// Connects to `endpoint`. Succeeds even if nobody listens yet; libzmq reconnects in the background.
    public func connect(_ endpoint: String) throws(ZMQError) {
        let handle = try liveHandle("connect \(endpoint)")
        _ = try ZMQCall.check("zmq_connect", operation: "connect \(endpoint)") { zmq_connect(handle, endpoint) }
    }

    /// Stops listening on an endpoint previously bound (use the resolved ``lastEndpoint`` for `*`).
    public func unbind(_ endpoint: String) throws(ZMQError) {
        let handle = try liveHandle("unbind \(endpoint)")
        _ = try ZMQCall.check("zmq_unbind", operation: "unbind \(endpoint)") { zmq_unbind(handle, endpoint) }
    }

    /// Disconnects from an endpoint previously connected.
    public func disconnect(_ endpoint: String) throws(ZMQError) {
        let handle = try liveHandle("disconnect \(endpoint)")
        _ = try ZMQCall.check("zmq_disconnect", operation: "disconnect \(endpoint)") {
            zmq_disconnect(handle, endpoint)
        }
    }

    /// The endpoint last bound or connected (`ZMQ_LAST_ENDPOINT`), with `*` resolved to the real
    /// port, e.g. `tcp://127.0.0.1:41234`; nil if there is none.
    public var lastEndpoint: String? {
        get throws(ZMQError) {
            let handle = try liveHandle("get lastEndpoint")
            var buffer = [CChar](repeating: 0, count: 1024)
            var size = buffer.count
            _ = try ZMQCall.check("zmq_getsockopt", operation: "get lastEndpoint") {
                zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size)
            }
            let endpoint = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return endpoint.isEmpty ? nil : endpoint
        }
    }
}

@available(*, unavailable, message: "a libzmq socket must be used by one thread only; pass it with `sending` if at all")
extension ZMQSocket: Sendable {}
