import RexControl
import RexFeeds
import ZMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One node's control connection: a DEALER socket (linger 0) speaking the control protocol
/// (RexControl's typed requests and documents), every wait bounded.
///
/// Each request carries a fresh `id`; replies with another id (late answers to requests that
/// timed out earlier) are discarded, so a client can be reused across requests.
///
/// ```swift
/// let client = try NodeClient(context: context, node: node)
/// defer { client.close() }
/// let state = try client.request(.state, NodeState.self, timeout: .seconds(2))
/// ```
///
/// Like its socket, a client belongs to one thread.
final class NodeClient {
    let node: NodeAddress
    let socket: ZMQSocket
    private let context: ZMQContext
    /// Whether this client speaks CURVE (the node has a key).
    let isSecured: Bool
    /// The operator's public key, for messages.
    let operatorKey: String?
    /// The socket's connection events: where a refused or mismatched handshake shows.
    private let monitor: ZMQSocketMonitor?
    private var events = ConnectionEvents()
    private var sequence = 0
    private static let idPrefix = "rexctl-\(getpid())-"

    /// Creates the socket and connects it (connecting never waits for the node). With `curve`,
    /// the socket authenticates as the operator's key pair and expects the node's key.
    init(context: ZMQContext, node: NodeAddress, curve: (keyPair: ZMQCurveKeyPair, serverKey: ZMQCurveKey)? = nil) throws(NodeRequestError)
    {
        self.node = node
        self.context = context
        isSecured = curve != nil
        operatorKey = curve?.keyPair.publicKey.z85
        var monitor: ZMQSocketMonitor?
        do {
            socket = try context.socket(.dealer)
            try socket.setOption(.linger, .zero)
            if let curve { try socket.makeCurveClient(curve.keyPair, serverKey: curve.serverKey) }
            monitor = try ZMQSocketMonitor(socket)
            try socket.connect(node.control)
        } catch {
            monitor?.close()
            throw NodeRequestError(node: node, kind: .transport(error.description))
        }
        self.monitor = monitor
    }

    func close() {
        monitor?.close()
        socket.close()
    }

    /// The error for a request that got no reply within `timeout`: what the connection's events
    /// say went wrong (a refused key, a CURVE mismatch), else "did not answer".
    func silence(after timeout: Duration) -> NodeRequestError {
        if let monitor { events.record(monitor.drain()) }
        var kind = events.diagnosis(secured: isSecured) ?? .unreachable(timeout: timeout)
        // A node that hangs up during our CURVE handshake either holds another key or speaks no
        // CURVE at all; the mismatch event that tells them apart can be lost with the reset of a
        // busy connection. A plain ping settles it: only a plain node answers one.
        if case .serverKeyMismatch = kind, !events.sawCryptographicError, answersPlainPing(within: .milliseconds(500)) {
            kind = .nodeNotSecured
        }
        var error = NodeRequestError(node: node, kind: kind)
        error.operatorKey = operatorKey
        return error
    }

    /// Whether the node answers a ping over a plain (NULL mechanism) connection within `window`.
    private func answersPlainPing(within window: Duration) -> Bool {
        guard let probe = try? context.socket(.dealer) else { return false }
        defer { probe.close() }
        do {
            try probe.setOption(.linger, .zero)
            try probe.connect(node.control)
            var request = ControlRequest<JSONValue>(.ping)
            request.id = .string(NodeClient.idPrefix + "plain-probe")
            guard try probe.send(try ControlCodec.encode(request), flags: .dontWait) else { return false }
            let poller = ZMQPoller(capacity: 1)
            try poller.register(probe)
            let deadline = ContinuousClock.now.advanced(by: window)
            while ContinuousClock.now < deadline {
                _ = try poller.poll(timeout: ContinuousClock.now.duration(to: deadline))
                if try probe.tryReceiveMultipart() != nil { return true }
            }
        } catch {
            return false
        }
        return false
    }

    /// A fresh request id.
    func nextID() -> JSONValue {
        sequence += 1
        return .string(NodeClient.idPrefix + String(sequence))
    }

    /// Sends `operation` and waits at most `timeout` for its result, read as a `Document`.
    func request<Document: Decodable>(
        _ operation: ControlOperation, _ type: Document.Type, timeout: Duration
    ) throws(NodeRequestError) -> Document {
        try request(ControlRequest<JSONValue>(operation), type, timeout: timeout)
    }

    /// Sends `request` (with a fresh id) and waits at most `timeout` for its result.
    func request<Action: Encodable, Document: Decodable>(
        _ request: ControlRequest<Action>, _ type: Document.Type, timeout: Duration
    ) throws(NodeRequestError) -> Document {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let id = try send(request, timeout: timeout)
        guard let reply = try awaitReply(id: id, until: deadline) else {
            throw silence(after: timeout)
        }
        return try reply.result(type).mapError { NodeRequestError(node: node, $0) }.get()
    }

    /// Queues a request with a fresh id without waiting; returns the id.
    @discardableResult
    func send<Action: Encodable>(_ request: ControlRequest<Action>, timeout: Duration) throws(NodeRequestError) -> JSONValue {
        var request = request
        let id = nextID()
        request.id = id
        let queued: Bool
        do {
            queued = try socket.send(try ControlCodec.encode(request), flags: .dontWait)
        } catch let error as ZMQError {
            throw NodeRequestError(node: node, kind: .transport(error.description))
        } catch {
            throw NodeRequestError(node: node, kind: .transport("cannot encode the request: \(error)"))
        }
        // A DEALER queues up to its high-water mark even while the node is down; a full queue
        // means the node has not been reading for a long time.
        // After a refused handshake the DEALER has no pipe left to queue on: the events say why.
        guard queued else { throw silence(after: timeout) }
        return id
    }

    /// Waits until the reply to `id` arrives or `deadline` passes (nil).
    func awaitReply(id: JSONValue, until deadline: ContinuousClock.Instant) throws(NodeRequestError) -> ReceivedReply? {
        let poller = ZMQPoller(capacity: 2)
        do {
            try poller.register(socket)
            if let monitor { try poller.register(monitor.socket) }
            while true {
                if let reply = try receiveAvailable(id: id) { return reply }
                // A refused key or a mechanism mismatch will not heal by waiting: answer now.
                if let monitor {
                    events.record(monitor.drain())
                    if events.isDefinitive(secured: isSecured) { return nil }
                }
                let remaining = ContinuousClock.now.duration(to: deadline)
                if remaining <= .zero { return nil }
                try poller.poll(timeout: remaining)
            }
        } catch {
            throw NodeRequestError(node: node, kind: .transport(error.description))
        }
    }

    /// Drains queued replies without blocking; returns the one for `id` if it is among them.
    func receiveAvailable(id: JSONValue) throws(ZMQError) -> ReceivedReply? {
        while let reply = try receive() {
            // A reply without an id (or with a null one) cannot be matched: it is taken as the
            // answer, so that a node that failed to read the request is heard.
            if reply.id == nil || reply.id == id || reply.id == .null { return reply }
        }
        return nil
    }

    /// The next queued reply, without blocking.
    func receive() throws(ZMQError) -> ReceivedReply? {
        while let frames = try socket.tryReceiveMultipart() {
            if let last = frames.last { return ReceivedReply(last) }
        }
        return nil
    }
}

extension NodeClient {
    /// Sends `operation` to each client at once and waits for all replies under one deadline,
    /// so N unreachable nodes cost one timeout, not N.
    ///
    /// - Returns: one result per client, in order.
    static func gather<Document: Decodable>(
        _ clients: [NodeClient], _ operation: ControlOperation, _ type: Document.Type, timeout: Duration
    ) -> [Result<Document, NodeRequestError>] {
        gather(clients, ControlRequest<JSONValue>(operation), type, timeout: timeout)
    }

    /// ``gather(_:_:_:timeout:)`` for a request with members of its own (a `statement`).
    static func gather<Document: Decodable>(
        _ clients: [NodeClient], _ request: ControlRequest<JSONValue>, _ type: Document.Type, timeout: Duration
    ) -> [Result<Document, NodeRequestError>] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var results = [Result<Document, NodeRequestError>?](repeating: nil, count: clients.count)
        var ids = [JSONValue?](repeating: nil, count: clients.count)
        let poller = ZMQPoller(capacity: max(1, clients.count))
        for (index, client) in clients.enumerated() {
            do throws(NodeRequestError) {
                ids[index] = try client.send(request, timeout: timeout)
                do {
                    try poller.register(client.socket)
                } catch {
                    throw NodeRequestError(node: client.node, kind: .transport(error.description))
                }
            } catch {
                results[index] = .failure(error)
            }
        }
        func pending() -> [Int] { results.indices.filter { results[$0] == nil } }
        while !pending().isEmpty {
            for index in pending() {
                guard let id = ids[index] else { continue }
                let client = clients[index]
                do {
                    if let reply = try client.receiveAvailable(id: id) {
                        results[index] = reply.result(type).mapError { NodeRequestError(node: client.node, $0) }
                    }
                } catch {
                    results[index] = .failure(NodeRequestError(node: client.node, kind: .transport(error.description)))
                }
            }
            let remaining = ContinuousClock.now.duration(to: deadline)
            if pending().isEmpty || remaining <= .zero { break }
            do {
                try poller.poll(timeout: remaining)
            } catch {
                break
            }
        }
        return results.enumerated().map { index, result in
            result ?? .failure(clients[index].silence(after: timeout))
        }
    }
}
