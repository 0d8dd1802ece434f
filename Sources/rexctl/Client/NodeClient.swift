import ZMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One node's control connection: a DEALER socket (linger 0) speaking the JSON control
/// protocol (`docs/protocol.md`), one request → one reply, every wait bounded.
///
/// Each request carries a fresh `id`; replies with another id (late answers to requests that
/// timed out earlier) are discarded, so a client can be reused across polls.
///
/// ```swift
/// let client = try NodeClient(context: context, node: node)
/// defer { client.close() }
/// let state = try client.request(.state, timeout: .seconds(2))
/// ```
///
/// Like its socket, a client belongs to one thread.
final class NodeClient {
    /// The protocol operations.
    enum Operation: String, Sendable {
        case ping, dispatch, state, keep, metrics
    }

    /// The protocol version requests carry and replies must carry: exactly the integer literal
    /// `1` (``JSONValue`` keeps number literals, so `1.0`, `1e0` and `true` are other values).
    static let protocolVersion: JSONValue = .number("1")

    let node: NodeAddress
    let socket: ZMQSocket
    private var sequence = 0
    private static let idPrefix = "rexctl-\(getpid())-"

    /// Creates the socket and connects it (connecting never waits for the node).
    init(context: ZMQContext, node: NodeAddress) throws(ControlError) {
        self.node = node
        do {
            socket = try context.socket(.dealer)
            try socket.setOption(.linger, .zero)
            try socket.connect(node.control)
        } catch {
            throw ControlError(node: node, kind: .transport(error.description))
        }
    }

    func close() { socket.close() }

    /// Sends one request and waits at most `timeout` for its result.
    ///
    /// - Returns: the reply's `result` (`null` if absent).
    /// - Throws: ``ControlError`` for no reply, an error reply, or an unreadable reply.
    func request(_ operation: Operation, action: JSONValue? = nil, timeout: Duration) throws(ControlError) -> JSONValue {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let id = try send(operation, action: action, timeout: timeout)
        guard let result = try awaitReply(id: id, until: deadline, timeout: timeout) else {
            throw ControlError(node: node, kind: .unreachable(timeout: timeout))
        }
        return try result.get()
    }

    /// Queues a request without waiting; returns its id.
    func send(_ operation: Operation, action: JSONValue? = nil, timeout: Duration) throws(ControlError) -> String {
        sequence += 1
        let id = NodeClient.idPrefix + String(sequence)
        var members: [JSONValue.Member] = [
            .init(key: "v", value: NodeClient.protocolVersion),
            .init(key: "id", value: .string(id)),
            .init(key: "op", value: .string(operation.rawValue)),
        ]
        if let action { members.append(.init(key: "action", value: action)) }
        let queued: Bool
        do {
            queued = try socket.send(JSONValue.object(members).compactText, flags: .dontWait)
        } catch {
            throw ControlError(node: node, kind: .transport(error.description))
        }
        // A DEALER queues up to its high-water mark even while the node is down; a full queue
        // means the node has not been reading for a long time.
        guard queued else { throw ControlError(node: node, kind: .unreachable(timeout: timeout)) }
        return id
    }

    /// Waits until the reply to `id` arrives or `deadline` passes (nil).
    func awaitReply(id: String, until deadline: ContinuousClock.Instant, timeout: Duration)
        throws(ControlError) -> Result<JSONValue, ControlError>?
    {
        let poller = ZMQPoller(capacity: 1)
        do {
            try poller.register(socket)
            while true {
                if let reply = try receiveAvailable(id: id) { return reply }
                let remaining = ContinuousClock.now.duration(to: deadline)
                if remaining <= .zero { return nil }
                try poller.poll(timeout: remaining)
            }
        } catch {
            throw ControlError(node: node, kind: .transport(error.description))
        }
    }

    /// Drains queued replies without blocking; returns the one for `id` if it is among them.
    func receiveAvailable(id: String) throws(ZMQError) -> Result<JSONValue, ControlError>? {
        while let frames = try socket.tryReceiveMultipart() {
            guard let last = frames.last else { continue }
            if let reply = decode(last, expecting: id) { return reply }
        }
        return nil
    }

    /// Decodes a reply frame; nil when it answers another request.
    func decode(_ frame: [UInt8], expecting id: String) -> Result<JSONValue, ControlError>? {
        let reply = NodeClient.Reply(frame, from: node)
        if let replyID = reply.id, replyID != .string(id), replyID != .null { return nil }
        return reply.outcome
    }

    /// One reply frame, read: which request it answers and what it says.
    ///
    /// The one place a reply is judged, for ``decode(_:expecting:)`` and the churn driver's
    /// pipelined requests alike: it must be a JSON object whose `"v"` is ``protocolVersion``
    /// and whose `"ok"` is a boolean.
    struct Reply: Sendable {
        /// The reply's `"id"` member as sent (nil when absent or when the frame is not an object).
        var id: JSONValue?
        /// The `result` of a success reply, or why there is none.
        var outcome: Result<JSONValue, ControlError>

        init(_ frame: [UInt8], from node: NodeAddress) {
            let document: JSONValue
            do {
                document = try JSONValue.parse(frame)
            } catch {
                self.init(id: nil, outcome: .failure(ControlError(node: node, kind: .badReply("not JSON: \(error)"))))
                return
            }
            guard document.members != nil else {
                self.init(id: nil, outcome: .failure(ControlError(node: node, kind: .badReply("not a JSON object"))))
                return
            }
            self.init(id: document["id"], outcome: Reply.outcome(of: document, from: node))
        }

        private init(id: JSONValue?, outcome: Result<JSONValue, ControlError>) {
            self.id = id
            self.outcome = outcome
        }

        private static func outcome(of document: JSONValue, from node: NodeAddress) -> Result<JSONValue, ControlError> {
            guard let version = document["v"] else {
                return .failure(ControlError(node: node, kind: .badReply(#"no "v" member"#)))
            }
            guard version == NodeClient.protocolVersion else {
                return .failure(ControlError(node: node, kind: .badReply("protocol version \(version.compactText)")))
            }
            switch document["ok"] {
            case .bool(true):
                return .success(document["result"] ?? .null)
            case .bool(false):
                let error = document["error"]
                return .failure(ControlError(node: node, kind: .errorReply(
                    code: error?["code"]?.stringValue ?? "unknown",
                    message: error?["message"]?.stringValue ?? "(no message)")))
            default:
                return .failure(ControlError(node: node, kind: .badReply(#"no "ok" member"#)))
            }
        }
    }
}

extension NodeClient {
    /// Sends one request to each client at once and waits for all replies under one deadline,
    /// so N unreachable nodes cost one timeout, not N.
    ///
    /// - Returns: one result per client, in order.
    static func gather(_ requests: [(client: NodeClient, operation: Operation)], timeout: Duration)
        -> [Result<JSONValue, ControlError>]
    {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var results = [Result<JSONValue, ControlError>?](repeating: nil, count: requests.count)
        var ids = [String?](repeating: nil, count: requests.count)
        let poller = ZMQPoller(capacity: max(1, requests.count))
        var tokens: [Int: ZMQPoller.Token] = [:]
        for (index, request) in requests.enumerated() {
            do throws(ControlError) {
                ids[index] = try request.client.send(request.operation, timeout: timeout)
                do {
                    tokens[index] = try poller.register(request.client.socket)
                } catch {
                    throw ControlError(node: request.client.node, kind: .transport(error.description))
                }
            } catch {
                results[index] = .failure(error)
            }
        }
        func pending() -> [Int] { results.indices.filter { results[$0] == nil } }
        while !pending().isEmpty {
            for index in pending() {
                guard let id = ids[index] else { continue }
                let client = requests[index].client
                do {
                    if let reply = try client.receiveAvailable(id: id) { results[index] = reply }
                } catch {
                    results[index] = .failure(ControlError(node: client.node, kind: .transport(error.description)))
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
            result ?? .failure(ControlError(node: requests[index].client.node, kind: .unreachable(timeout: timeout)))
        }
    }
}

