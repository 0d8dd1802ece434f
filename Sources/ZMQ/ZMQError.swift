/// An error reported by libzmq, or by this layer on top of it.
///
/// Errors are values with an extensible ``Code`` (compare with `==` or `switch` over the static
/// members), the raw `errno`, libzmq's own message (`zmq_strerror`), the failing libzmq function
/// and, where it helps, what the call was about (an endpoint, an option). ``description`` is
/// written for an operator: it says what failed, why, and what to check.
///
/// ```swift
/// do {
///     try socket.bind("tcp://127.0.0.1:7101")
/// } catch let error where error.code == .addressInUse {
///     print(error) // bind tcp://127.0.0.1:7101 failed: Address already in use (EADDRINUSE) — is another process using the port?
/// }
/// ```
///
/// Would-block is deliberately *not* an error on the non-blocking paths (`tryReceive`,
/// `send(…, flags: .dontWait)` return `nil`/`false`); ``Code/wouldBlock`` is thrown only when a
/// configured send or receive timeout expires.
public struct ZMQError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A category of failure. Extensible: new codes may be added without breaking callers.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        let rawValue: String
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// The operation would block (`EAGAIN`): a send/receive timeout expired.
        public static let wouldBlock = Code("wouldBlock")
        /// The context was shut down or terminated (`ETERM`); close the socket and stop.
        public static let contextTerminated = Code("contextTerminated")
        /// The call was interrupted by a signal (`EINTR`) and could not be retried.
        public static let interrupted = Code("interrupted")
        /// The address is already bound by another socket or process (`EADDRINUSE`).
        public static let addressInUse = Code("addressInUse")
        /// The address is not available on this host (`EADDRNOTAVAIL`).
        public static let addressNotAvailable = Code("addressNotAvailable")
        /// The endpoint string is malformed (`EINVAL` from bind/connect) or names no peer (`ENOENT`).
        public static let invalidEndpoint = Code("invalidEndpoint")
        /// The endpoint's transport is unknown or not compiled in (`EPROTONOSUPPORT`).
        public static let protocolNotSupported = Code("protocolNotSupported")
        /// The transport does not fit the socket kind (`ENOCOMPATPROTO`).
        public static let incompatibleProtocol = Code("incompatibleProtocol")
        /// Socket limit (`ZMQ_MAX_SOCKETS`) or process fd limit reached (`EMFILE`).
        public static let tooManySockets = Code("tooManySockets")
        /// The operation is not valid in the socket's current state (`EFSM`), e.g. REQ sending twice.
        public static let invalidState = Code("invalidState")
        /// A message could not be routed (`EHOSTUNREACH`), e.g. ROUTER with router-mandatory.
        public static let hostUnreachable = Code("hostUnreachable")
        /// The operation or option is not supported by this socket kind (`ENOTSUP`).
        public static let notSupported = Code("notSupported")
        /// An argument (option value, size) was rejected (`EINVAL`).
        public static let invalidArgument = Code("invalidArgument")
        /// The socket was already closed (or was never valid: `ENOTSOCK`).
        public static let socketClosed = Code("socketClosed")
        /// ``ZMQContext/terminate(timeout:)`` gave up because sockets were still open.
        public static let socketsStillOpen = Code("socketsStillOpen")
        /// Any other errno; inspect ``ZMQError/errno``.
        public static let other = Code("other")

        /// The code's name, e.g. `"addressInUse"`.
        public var description: String { rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// The raw error number (`zmq_errno()`), or 0 if the error did not come from libzmq.
    public var errno: Int32
    /// libzmq's message for ``errno`` (`zmq_strerror`), or this layer's own message.
    public var message: String
    /// The libzmq function (or wrapper operation) that failed, e.g. `"zmq_bind"`.
    public var function: String
    /// What the call was about, e.g. `"bind tcp://127.0.0.1:7101"`; empty if nothing useful.
    public var operation: String

    /// Creates an error; normally produced by the library, public for tests and adapters.
    public init(code: Code, errno: Int32, message: String, function: String, operation: String = "") {
        self.code = code
        self.errno = errno
        self.message = message
        self.function = function
        self.operation = operation
    }

    /// A sentence an operator can act on: what failed, libzmq's reason, the errno name and a hint.
    public var description: String {
        let what = operation.isEmpty ? function : operation
        var text = "\(what) failed: \(message)"
        if let name = ZMQErrno.name(errno) { text += " (\(name))" }
        if let hint = hint { text += " — \(hint)" }
        return text
    }

    private var hint: String? {
        switch code {
        case .addressInUse: return "is another process using the port? Bind to port * to get a free one."
        case .addressNotAvailable: return "is the interface address configured on this host?"
        case .invalidEndpoint:
            return "check the endpoint syntax (tcp://host:port, ipc:///path, inproc://name) and that it is bound."
        case .protocolNotSupported: return "use one of tcp://, ipc://, inproc:// (or another transport libzmq was built with)."
        case .incompatibleProtocol: return "this transport cannot be used with this socket kind."
        case .tooManySockets:
            return "raise ZMQContext(maxSockets:) or `ulimit -n`; closed sockets are reaped asynchronously, retry shortly."
        case .contextTerminated: return "the context is shutting down; close the socket and leave the loop."
        case .invalidState: return "the socket's send/receive pattern was violated (e.g. REQ must alternate send and receive)."
        case .hostUnreachable: return "no connected peer has that routing id."
        case .wouldBlock: return "the timeout expired before the operation could complete."
        case .socketClosed: return "the socket was already closed."
        case .socketsStillOpen:
            return "close every socket on its owner thread (after shutdown() their blocked calls fail with ETERM), then terminate again."
        default: return nil
        }
    }
}
