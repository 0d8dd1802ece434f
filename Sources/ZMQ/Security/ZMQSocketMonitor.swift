import CZMQ

/// One event of a monitored socket (`zmq_socket_monitor`): what happened to which connection.
public struct ZMQMonitorEvent: Sendable, Equatable {
    /// Which event; a struct so that events of newer libzmq versions still read.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public static let connected = Kind(rawValue: UInt16(ZMQ_EVENT_CONNECTED))
        public static let connectDelayed = Kind(rawValue: UInt16(ZMQ_EVENT_CONNECT_DELAYED))
        public static let connectRetried = Kind(rawValue: UInt16(ZMQ_EVENT_CONNECT_RETRIED))
        public static let accepted = Kind(rawValue: UInt16(ZMQ_EVENT_ACCEPTED))
        public static let closed = Kind(rawValue: UInt16(ZMQ_EVENT_CLOSED))
        public static let disconnected = Kind(rawValue: UInt16(ZMQ_EVENT_DISCONNECTED))
        public static let monitorStopped = Kind(rawValue: UInt16(ZMQ_EVENT_MONITOR_STOPPED))
        /// The ZMTP (and CURVE) handshake completed and the peer was authenticated.
        public static let handshakeSucceeded = Kind(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_SUCCEEDED))
        /// The handshake failed for a system error (`value` is the errno).
        public static let handshakeFailedNoDetail = Kind(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL))
        /// The peers disagreed (`value` is a `ZMQ_PROTOCOL_ERROR_*`: a mechanism mismatch, a
        /// cryptographic error, …).
        public static let handshakeFailedProtocol = Kind(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL))
        /// The server's ZAP handler refused the peer (`value` is the ZAP status, e.g. 400).
        public static let handshakeFailedAuth = Kind(rawValue: UInt16(ZMQ_EVENT_HANDSHAKE_FAILED_AUTH))

        public var description: String {
            switch self {
            case .connected: return "connected"
            case .connectDelayed: return "connectDelayed"
            case .connectRetried: return "connectRetried"
            case .accepted: return "accepted"
            case .closed: return "closed"
            case .disconnected: return "disconnected"
            case .monitorStopped: return "monitorStopped"
            case .handshakeSucceeded: return "handshakeSucceeded"
            case .handshakeFailedNoDetail: return "handshakeFailedNoDetail"
            case .handshakeFailedProtocol: return "handshakeFailedProtocol"
            case .handshakeFailedAuth: return "handshakeFailedAuth"
            default: return "event(0x\(String(rawValue, radix: 16)))"
            }
        }
    }

    public let kind: Kind
    /// The event's number: an errno, a protocol error, a ZAP status, a file descriptor…
    public let value: UInt32
    /// The endpoint the event is about.
    public let endpoint: String

    /// An event (as the monitor reads them; public for tests of code that interprets events).
    public init(kind: Kind, value: UInt32, endpoint: String) {
        self.kind = kind
        self.value = value
        self.endpoint = endpoint
    }

    /// `ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH`: one side speaks CURVE, the other not.
    public static let mechanismMismatch = UInt32(ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH)
    /// `ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC`: a CURVE box did not open (a wrong key).
    public static let cryptographicError = UInt32(ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC)
}

/// Watches a socket's connections: libzmq reports each event on an inproc PAIR socket, read here
/// without blocking. Owned by the monitored socket's thread.
///
/// CURVE failures are silent on the socket itself (a refused client just gets no replies); the
/// monitor is where they show: ``ZMQMonitorEvent/Kind/handshakeFailedAuth`` when the server's
/// ZAP handler said no, ``ZMQMonitorEvent/Kind/handshakeFailedProtocol`` on a mechanism
/// mismatch, and a connection that goes away without ``ZMQMonitorEvent/Kind/handshakeSucceeded``
/// when the server could not read our handshake (we expected another server key).
public final class ZMQSocketMonitor {
    /// The PAIR socket events arrive on.
    public let socket: ZMQSocket
    private let monitored: ZMQSocket
    private var stopped = false

    /// Starts monitoring `socket` for every event.
    public init(_ socket: ZMQSocket) throws(ZMQError) {
        let handle = try socket.liveHandle("monitor socket")
        let endpoint = "inproc://zmq-monitor-\(UInt64.random(in: 0...UInt64.max))"
        _ = try ZMQCall.check("zmq_socket_monitor", operation: "monitor \(socket.kind) socket") {
            zmq_socket_monitor(handle, endpoint, ZMQ_EVENT_ALL)
        }
        monitored = socket
        let pair: ZMQSocket
        do {
            pair = try socket.context.socket(.pair)
            pair.receiveFrameLimit = 2
            try pair.connect(endpoint)
        } catch {
            zmq_socket_monitor(handle, nil, 0)
            throw error
        }
        self.socket = pair
    }

    /// The next queued event, or nil.
    public func next() -> ZMQMonitorEvent? {
        while true {
            guard let frames = try? socket.tryReceiveMultipart() else { return nil }
            guard frames.count == 2, frames[0].count == 6 else { continue }
            let head = frames[0]
            let kind = UInt16(head[0]) | UInt16(head[1]) << 8
            let value = UInt32(head[2]) | UInt32(head[3]) << 8 | UInt32(head[4]) << 16 | UInt32(head[5]) << 24
            return ZMQMonitorEvent(
                kind: .init(rawValue: kind), value: value,
                endpoint: String(decoding: frames[1].prefix(1024), as: UTF8.self))
        }
    }

    /// Every queued event, in order.
    public func drain(limit: Int = 1024) -> [ZMQMonitorEvent] {
        var events: [ZMQMonitorEvent] = []
        while events.count < limit, let event = next() { events.append(event) }
        return events
    }

    /// Stops monitoring and closes the PAIR socket (before closing the monitored socket).
    public func close() {
        guard !stopped else { return }
        stopped = true
        if let handle = monitored.handle { zmq_socket_monitor(handle, nil, 0) }
        socket.close()
    }
}

@available(*, unavailable, message: "a monitor belongs to its socket's thread")
extension ZMQSocketMonitor: Sendable {}
