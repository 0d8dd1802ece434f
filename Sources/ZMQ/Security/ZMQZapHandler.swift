/// One handshake the ZAP handler is asked about (ZAP, RFC 27): which socket's domain, from
/// where, by which mechanism, and, for CURVE, the client's long-term public key.
public struct ZMQZapRequest: Sendable, Equatable {
    /// The server socket's ``ZMQBytesOption/zapDomain``.
    public let domain: String
    /// The peer's address as libzmq reports it (an IP for tcp, empty for ipc/inproc).
    public let address: String
    /// `"NULL"`, `"PLAIN"` or `"CURVE"`.
    public let mechanism: String
    /// The client's public key (CURVE only).
    public let clientKey: ZMQCurveKey?

    /// A request (as the handler reads them; public for tests of decision code).
    public init(domain: String, address: String, mechanism: String, clientKey: ZMQCurveKey?) {
        self.domain = domain
        self.address = address
        self.mechanism = mechanism
        self.clientKey = clientKey
    }
}

/// What the handler answers for one handshake.
public enum ZMQZapDecision: Sendable, Equatable {
    /// Let the connection in; `userID` becomes the `User-Id` property of every message it sends
    /// (read with ``ZMQSocket/receivedProperty(_:)``).
    case allow(userID: String)
    /// Refuse it: libzmq closes the connection and the client sees ZAP status 400.
    case deny(reason: String)
}

/// A ZAP handler: the socket libzmq asks, on every new connection to a socket with a security
/// mechanism (or a ZAP domain), whether to let that peer in.
///
/// It binds `inproc://zeromq.zap.01` in its context (one handler per context), and it is an
/// ordinary socket: it answers only when its owner reads it, on the owner's thread. A node
/// registers it with its reactor; a handshake waits until the reactor turns. Requests are read
/// and answered with ``answerPending(limit:_:)``, which calls the owner's decision per request.
///
/// ```swift
/// let zap = try ZMQZapHandler(context: context)
/// try server.makeCurveServer(pair, zapDomain: "rex.control")
/// try server.bind("tcp://127.0.0.1:7201")
/// // in the owner's loop, when zap.socket is readable:
/// zap.answerPending { request in
///     allowed.contains(request.clientKey) ? .allow(userID: request.clientKey!.z85) : .deny(reason: "unknown key")
/// }
/// ```
public final class ZMQZapHandler {
    /// The endpoint libzmq sends ZAP requests to.
    public static let endpoint = "inproc://zeromq.zap.01"

    /// What the handler answered so far.
    public struct Counters: Sendable, Equatable {
        public var allowed = 0
        public var denied = 0
        /// Requests not in the ZAP form (never sent by libzmq itself): dropped unanswered.
        public var malformed = 0

        public init(allowed: Int = 0, denied: Int = 0, malformed: Int = 0) {
            self.allowed = allowed
            self.denied = denied
            self.malformed = malformed
        }
    }

    /// The ROUTER socket bound at ``endpoint`` (register it with the owner's poller).
    public let socket: ZMQSocket
    public private(set) var counters = Counters()

    /// A request is the ROUTER's routing id, an empty delimiter, then version, request id,
    /// domain, address, identity, mechanism and at most one credential frame (CURVE's key).
    private static let maxFrames = 9

    /// Creates the handler's socket and binds it in `context`.
    ///
    /// - Throws: ``ZMQError/Code/addressInUse`` when the context already has a handler.
    public init(context: ZMQContext) throws(ZMQError) {
        let socket = try context.socket(.router)
        do {
            socket.receiveFrameLimit = Self.maxFrames
            try socket.bind(Self.endpoint)
        } catch {
            socket.close()
            throw error
        }
        self.socket = socket
    }

    /// Reads the queued requests (at most `limit`, without blocking) and answers each with what
    /// `decide` says. Returns how many were answered.
    @discardableResult
    public func answerPending(limit: Int = 256, _ decide: (ZMQZapRequest) -> ZMQZapDecision) -> Int {
        var answered = 0
        for _ in 0..<max(1, limit) {
            let frames: [[UInt8]]?
            do {
                frames = try socket.tryReceiveMultipart()
            } catch {
                return answered
            }
            guard let frames else { return answered }
            guard let (envelope, requestID, request) = Self.parse(frames) else {
                counters.malformed += 1
                continue
            }
            let decision = decide(request)
            let status: (code: String, text: String, user: String)
            switch decision {
            case .allow(let user):
                counters.allowed += 1
                status = ("200", "OK", user)
            case .deny(let reason):
                counters.denied += 1
                status = ("400", reason, "")
            }
            let reply =
                envelope + [
                    Array("1.0".utf8), requestID, Array(status.code.utf8), Array(status.text.utf8.prefix(255)),
                    Array(status.user.utf8.prefix(255)), [],
                ]
            _ = try? socket.sendMultipart(reply, flags: .dontWait)
            answered += 1
        }
        return answered
    }

    /// Closes the socket (on the owner's thread); later handshakes in the context fail.
    public func close() { socket.close() }

    /// Splits a request into the reply's envelope (routing id, delimiter), its request id and
    /// its fields; nil when it is not a ZAP 1.0 request.
    static func parse(_ frames: [[UInt8]]) -> ([[UInt8]], [UInt8], ZMQZapRequest)? {
        guard frames.count >= 8, frames.count <= maxFrames, frames[1].isEmpty, frames[2] == Array("1.0".utf8) else {
            return nil
        }
        func text(_ index: Int) -> String? {
            frames[index].count <= 255 ? String(decoding: frames[index], as: UTF8.self) : nil
        }
        guard let domain = text(4), let address = text(5), let mechanism = text(7), frames[3].count <= 255 else { return nil }
        var clientKey: ZMQCurveKey?
        if mechanism == "CURVE" {
            guard frames.count == 9, let key = ZMQCurveKey(bytes: frames[8]) else { return nil }
            clientKey = key
        }
        return (
            Array(frames[0..<2]), frames[3], ZMQZapRequest(domain: domain, address: address, mechanism: mechanism, clientKey: clientKey)
        )
    }
}

@available(*, unavailable, message: "the ZAP handler's socket belongs to one thread")
extension ZMQZapHandler: Sendable {}

extension ZMQZapHandler {
    /// Whether `frames` read as a ZAP request (for tests of the parser's bounds).
    public static func parseForTesting(_ frames: [[UInt8]]) -> Bool { parse(frames) != nil }
}
