import RexCluster
import RexControl
import SwiftRex
import ZMQ

/// The node's optional HTTP endpoint (`--metrics`): `GET /metrics` in the Prometheus text
/// format, `GET /healthz` (liveness: answered by the reactor, so 200 while it turns) and
/// `GET /readyz` (readiness, 200 or 503: see ``NodeReadiness``), on a `ZMQ_STREAM` socket read
/// by the reactor.
///
/// Nothing here blocks the reactor or grows without bound: a connection may send at most
/// ``maxRequestBytes`` before its head is complete (then it gets 400); at most
/// ``maxConnections`` are kept, and a new one past that closes the oldest (there is no idle
/// timeout: an idle connection keeps its slot until a newer one needs it); at most ``maxConcurrentRenders``
/// `/metrics` responses are built at once (then 503); every send is non-blocking, and a
/// connection whose send would block is dropped. `/metrics` is sampled on the reactor (copies)
/// and rendered off it, like the control `metrics` operation, from the same ``MetricsDocument``.
/// Each connection gets one response and is then closed (`Connection: close`).
final class MetricsEndpoint {
    /// The largest request head accepted.
    static let maxRequestBytes = 8 << 10
    /// The most connections kept open at once.
    static let maxConnections = 32
    /// Closed connections remembered so their disconnect notices are not taken for new ones.
    static let rememberedClosed = 64
    /// The most `/metrics` responses being built at once; past it a request gets 503. (Evicted
    /// connections' builds still run to the end, so the connection limit alone does not bound them.)
    static let maxConcurrentRenders = 4

    private struct Connection {
        var received: [UInt8] = []
        /// True once a response is being built (later bytes from the client are ignored).
        var answering = false
    }

    private let socket: ZMQSocket
    private let reactor: Reactor
    /// Reads the metrics on the reactor; the work it returns completes the document off it.
    private let sample: () -> @Sendable () async -> MetricsDocument
    private let nodeID: String
    private let log: NodeLogger
    /// What `/readyz` decides from, read on the reactor (see ``NodeReadiness``).
    private let readiness: () -> NodeReadiness.Facts
    private var reader: ReaderToken?
    private var bound: ReactorBound<MetricsEndpoint>?
    private var connections: [[UInt8]: Connection] = [:]
    /// Connection ids, oldest first.
    private var order: [[UInt8]] = []
    private var recentlyClosed: [[UInt8]] = []
    private var rendering = 0

    init(
        socket: ZMQSocket, reactor: Reactor, sample: @escaping () -> @Sendable () async -> MetricsDocument, nodeID: String, log: NodeLogger,
        readiness: @escaping () -> NodeReadiness.Facts = { NodeReadiness.standalone }
    ) {
        self.readiness = readiness
        self.socket = socket
        self.reactor = reactor
        self.sample = sample
        self.nodeID = nodeID
        self.log = log
    }

    func start() {
        bound = ReactorBound(self, on: reactor)
        reader = reactor.addReader(socket) { [unowned self] in drain() }
    }

    func close() {
        if let reader { reactor.removeReader(reader) }
        reader = nil
        bound = nil
        connections.removeAll()
        order.removeAll()
        socket.close()
    }

    /// How many connections are open now (for tests).
    var connectionCount: Int { connections.count }

    private func drain() {
        for _ in 0..<256 {
            let message: [[UInt8]]?
            do {
                message = try socket.tryReceiveMultipart()
            } catch {
                log.error("metrics_receive_failed", ["error": "\(error)"])
                return
            }
            guard let message else { return }
            guard message.count == 2 else { continue }
            handle(id: message[0], data: message[1])
        }
    }

    private func handle(id: [UInt8], data: [UInt8]) {
        guard var connection = connections[id] else {
            // An empty frame from an unknown id is a connect notice (or the disconnect notice
            // of one this endpoint closed); data from an unknown id can only follow a close.
            guard data.isEmpty, !recentlyClosed.contains(id) else { return }
            if connections.count >= Self.maxConnections, let oldest = order.first { closeConnection(oldest) }
            connections[id] = Connection()
            order.append(id)
            return
        }
        if data.isEmpty {
            // The client disconnected.
            forget(id)
            return
        }
        guard !connection.answering else { return }
        // Kept to one byte past the limit: enough to know it is over.
        connection.received += data.prefix(Self.maxRequestBytes + 1 - connection.received.count)
        switch HTTPRequestHead.parse(connection.received) {
        case .incomplete where connection.received.count > Self.maxRequestBytes:
            respond(id, .text(400, "Bad Request", "request head over \(Self.maxRequestBytes) bytes\n"))
        case .incomplete:
            connections[id] = connection
        case .malformed:
            respond(id, .text(400, "Bad Request", "not an HTTP/1.x request\n"))
        case .request(let head):
            connection.answering = true
            connections[id] = connection
            route(id, head)
        }
    }

    private func route(_ id: [UInt8], _ head: HTTPRequestHead) {
        let includeBody = head.method != "HEAD"
        guard head.method == "GET" || head.method == "HEAD" else {
            var response = HTTPResponse.text(405, "Method Not Allowed", "only GET and HEAD\n")
            response.extraHeaders = [("Allow", "GET, HEAD")]
            respond(id, response)
            return
        }
        switch head.path {
        case "/healthz":
            respond(id, .text(200, "OK", "ok\n"), includeBody: includeBody)
        case "/readyz":
            let readiness = NodeReadiness.decide(self.readiness())
            let response: HTTPResponse =
                readiness.ready ? .text(200, "OK", readiness.reason + "\n") : .text(503, "Service Unavailable", readiness.reason + "\n")
            respond(id, response, includeBody: includeBody)
        case "/metrics":
            serveMetrics(id, includeBody: includeBody)
        default:
            respond(id, .text(404, "Not Found", "try /metrics, /healthz or /readyz\n"), includeBody: includeBody)
        }
    }

    /// Samples on the reactor, renders off it, and sends from the reactor again, if the
    /// connection is still there by then.
    private func serveMetrics(_ id: [UInt8], includeBody: Bool) {
        guard let bound else { return }
        guard rendering < Self.maxConcurrentRenders else {
            var response = HTTPResponse.text(503, "Service Unavailable", "busy rendering metrics; retry\n")
            response.extraHeaders = [("Retry-After", "1")]
            respond(id, response, includeBody: includeBody)
            return
        }
        rendering += 1
        let build = sample()
        let nodeID = self.nodeID
        Task {
            let text = await build().prometheusText(nodeID: nodeID)
            var response = HTTPResponse.text(200, "OK", text)
            response.contentType = MetricsDocument.prometheusContentType
            let bytes = response.bytes(includeBody: includeBody)
            bound.reactor.execute {
                bound.value.rendering -= 1
                bound.value.send(id, bytes)
            }
        }
    }

    private func respond(_ id: [UInt8], _ response: HTTPResponse, includeBody: Bool = true) {
        send(id, response.bytes(includeBody: includeBody))
    }

    /// Sends a whole response, then closes the connection (libzmq writes the bytes before it
    /// closes: the close is queued behind them on the same pipe).
    private func send(_ id: [UInt8], _ bytes: [UInt8]) {
        guard connections[id] != nil, !socket.isClosed else { return }
        do {
            if try !socket.sendMultipart([id, bytes], flags: [.dontWait]) {
                log.debug("metrics_reply_dropped", ["reason": "would block"])
            }
        } catch {
            log.debug("metrics_reply_failed", ["error": "\(error)"])
        }
        closeConnection(id)
    }

    private func closeConnection(_ id: [UInt8]) {
        _ = try? socket.sendMultipart([id, []], flags: [.dontWait])
        forget(id)
        recentlyClosed.append(id)
        if recentlyClosed.count > Self.rememberedClosed { recentlyClosed.removeFirst() }
    }

    private func forget(_ id: [UInt8]) {
        connections[id] = nil
        order.removeAll { $0 == id }
    }
}
