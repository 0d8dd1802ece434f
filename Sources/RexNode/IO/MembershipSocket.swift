import RexCluster
import RexMembership
import ZMQ

/// The node's point-to-point membership path: one ROUTER that binds the membership endpoint
/// (where peers' probes arrive) and connects to each member it sends to, naming that connection
/// by a routing id of its own (`ZMQ_CONNECT_ROUTING_ID`: a generation number and the member's id,
/// never reused), so a message is addressed by member. Lives on the reactor thread.
///
/// Every send is best effort and never blocks: a full queue or an unreachable peer is a counted
/// drop (SWIM is built for lost messages). Inbound, a frame up to `maxFrameBytes` reaches the
/// decoder, which counts one over ``MembershipWire/maxMessageBytes`` as `oversized`; libzmq drops
/// the connection of a peer sending a longer one before allocating it. A message that is not
/// [routing id, payload] is counted and dropped. Secured: the socket is a CURVE server that lets
/// in cluster members only (the data domain's ZAP rule), each connection it makes expects the
/// member's own key, and the member id the ZAP handler authenticated is what the machine is told
/// the sender is (a message without one, or whose key was revoked since, is counted and dropped).
final class MembershipSocket {
    struct Counters: Equatable, Sendable {
        var sent = 0
        /// Sends dropped: the peer's queue was full or it could not be routed.
        var dropped = 0
        /// Sends dropped because a secured node does not know the destination's key (or it had no id).
        var unkeyed = 0
        var received = 0
        /// Inbound messages not [routing id, payload], or without an authenticated member (secured).
        var refused = 0
        var connections = 0
        /// Joins held back because their seed's host has not resolved yet (see `SeedLookups`).
        var unresolved = 0
    }

    /// The longest frame libzmq lets through: twice the longest message, so a forged oversized
    /// message is counted (by the decoder) rather than only cutting its connection.
    static let maxFrameBytes = 2 * MembershipWire.maxMessageBytes
    /// At most this many peers connected at once (the membership's own table is bounded too).
    static let maxConnections = 4096
    /// Messages queued per peer before sends to it are dropped.
    static let queuePerPeer = 64
    /// How long `close` keeps unsent messages (the leave announcement); libzmq's default would
    /// keep them forever, the node's other sockets keep none.
    static let leaveLinger = Duration.milliseconds(50)

    let socket: ZMQSocket
    /// The resolved endpoint (with the real port when bound to `:*`).
    let endpoint: String
    private(set) var counters = Counters()
    private let reactor: Reactor
    private let log: NodeLogger
    private let security: MembershipSecurity?
    /// One connection: where it goes and the routing id it was given.
    private struct Connection {
        let endpoint: String
        let routingID: [UInt8]
    }

    /// Member id (or "@endpoint" for a seed) → its connection.
    private var connected: [String: Connection] = [:]
    /// Makes every connection's routing id new: libzmq disconnects asynchronously, and a connect
    /// reusing the id of a pipe not yet gone aborts the process (router.cpp `!has_out_pipe`).
    private var generation: UInt64 = 0
    private var reader: ReaderToken?
    private var deliver: (([UInt8], String?) -> Void)?
    /// The machine's one protocol timer, armed on the reactor itself (see `arm(after:_:)`).
    private var timer: TimerToken?
    /// Whether each seed's host resolves yet, and the lookups that tell.
    private var lookups = SeedLookups()
    private let resolver: HostResolver
    /// Time since the socket opened (the backoff's clock; tests give their own).
    private let elapsed: () -> Duration
    /// Changes the ids the machine admits (set by the membership as it starts).
    var admissions: ((Set<String>) -> Void)?

    init(
        context: ZMQContext, reactor: Reactor, endpoint: String, log: NodeLogger, security: MembershipSecurity?,
        resolver: HostResolver = .system, elapsed: (() -> Duration)? = nil
    ) throws(ZMQError) {
        reactor.checkIsolated()
        self.resolver = resolver
        let opened = ContinuousClock.now
        self.elapsed = elapsed ?? { ContinuousClock.now - opened }
        self.reactor = reactor
        self.log = log
        self.security = security
        let socket = try context.socket(.router)
        do {
            if let security {
                // The listener keeps these server options; each connect then switches the socket's
                // options to a client expecting that member's key (libzmq copies them per connect).
                try security.policy.makeServer(socket, domain: ZapPolicy.dataDomain)
                try socket.setOption(.curvePublicKey, security.policy.keyPair.publicKey)
            }
            try socket.setOption(.maxMessageSize, Self.maxFrameBytes)
            try socket.setOption(.sendHighWaterMark, Self.queuePerPeer)
            try socket.setOption(.routerMandatory, true)
            // A stopping node's leave announcement is sent as the socket closes: give it a moment.
            try socket.setOption(.linger, Self.leaveLinger)
            socket.receiveFrameLimit = 2
            try socket.bind(endpoint)
        } catch {
            socket.close()
            throw error
        }
        self.socket = socket
        self.endpoint = ((try? socket.lastEndpoint) ?? nil) ?? endpoint
    }

    /// Hands every inbound message to `deliver` with its authenticated sender (nil: plain node).
    func open(_ deliver: @escaping ([UInt8], String?) -> Void) {
        self.deliver = deliver
        if reader == nil { reader = reactor.addReader(socket) { [unowned self] in drain() } }
    }

    /// Stops delivering (the socket stays bound until `close`).
    func stopDelivering() {
        deliver = nil
    }

    /// Sends `bytes` to member `id` (nil: a seed known by its endpoint only) at `endpoint`,
    /// connecting first if needed; drops (counted) rather than waits.
    func send(to id: String?, endpoint: String, _ bytes: [UInt8]) {
        let key = id ?? "@" + endpoint
        if id == nil, let host = SeedLookups.hostToResolve(in: endpoint), !seedResolves(host) { return }
        guard let routingID = connect(key, id: id, endpoint: endpoint) else { return }
        do {
            guard try socket.send(routingID, flags: [.more, .dontWait]), try socket.send(bytes, flags: .dontWait) else {
                counters.dropped += 1
                return
            }
            counters.sent += 1
        } catch {
            counters.dropped += 1
            // No pipe under that routing id any more (a disconnect of the same endpoint under
            // another key took it): forget it, so the next send connects anew.
            if error.code == .hostUnreachable { connected[key] = nil }
        }
    }

    /// Whether a join may go to the seed at `host`: once its name resolved. Until then the join
    /// is held back (counted), and a lookup starts off the reactor when the backoff allows.
    private func seedResolves(_ host: String) -> Bool {
        switch lookups.join(to: host, now: elapsed()) {
        case .send: return true
        case .hold: break
        case .holdAndLookUp(let host):
            let bound = ReactorBound(WeakMembershipSocket(self), on: reactor)
            resolver.resolve(host) { failure in
                bound.reactor.execute { bound.value.socket?.lookedUp(host, failure: failure) }
            }
        }
        counters.unresolved += 1
        return false
    }

    private func lookedUp(_ host: String, failure: String?) {
        switch lookups.finished(host, resolved: failure == nil, now: elapsed(), jitter: Double.random(in: 0.5..<1.5)) {
        case .resolved(let failures):
            log.info("seed_resolved", ["host": host, "failed_lookups": "\(failures)"])
        case .failed(let failures, let wait):
            // Every failure up to 5, then one in 30 (at the 10 s cap: one line per 5 minutes).
            guard failures <= 5 || failures % 30 == 0 else { return }
            log.warning(
                "seed_lookup_failed",
                ["host": host, "failures": "\(failures)", "retry_in_ms": "\(wait.wholeMilliseconds)", "error": failure ?? ""])
        case .unexpected: break
        }
    }

    /// Drops the connection to member `id` (declared dead or left); a later send reconnects.
    /// Arms the membership machine's timer on the reactor, replacing the one armed before:
    /// `fire` runs on this thread when `delay` has passed, with no hop through Swift's
    /// cooperative pool and no store cycle (an idle node ticks about 20 times a second).
    func arm(after delay: Duration, _ fire: @escaping () -> Void) {
        if let timer { reactor.cancelTimer(timer) }
        timer = reactor.schedule(after: delay) { [weak self] in
            self?.timer = nil
            fire()
        }
    }

    /// The machine admits `ids` only from now on (a secured node's authority changed them).
    func admit(_ ids: Set<String>) {
        admissions?(ids)
    }

    func forget(_ id: String) {
        guard let connection = connected.removeValue(forKey: id) else { return }
        try? socket.disconnect(connection.endpoint)
        counters.connections = connected.count
    }

    /// The routing id of the connection to `key` at `endpoint`, connecting first if needed.
    private func connect(_ key: String, id: String?, endpoint: String) -> [UInt8]? {
        if let connection = connected[key], connection.endpoint == endpoint { return connection.routingID }
        if let old = connected.removeValue(forKey: key) { try? socket.disconnect(old.endpoint) }
        guard connected.count < Self.maxConnections else {
            counters.dropped += 1
            return nil
        }
        generation &+= 1
        // 1 + 20 digits + 1 + at most 64 id bytes (or 1 + 60 endpoint bytes): within libzmq's 255.
        let routingID = Array("\(generation)#".utf8) + Array(key.utf8.prefix(200))
        do {
            if let security {
                guard let id, let peerKey = security.policy.key(ofMember: id) else {
                    counters.unkeyed += 1
                    return nil
                }
                try socket.setOption(.curveServerKey, peerKey)
            }
            try socket.setOption(.connectRoutingID, routingID)
            try socket.connect(endpoint)
        } catch {
            counters.dropped += 1
            log.warning("membership_connect_failed", ["peer": id ?? "seed", "endpoint": endpoint, "error": "\(error)"])
            return nil
        }
        connected[key] = Connection(endpoint: endpoint, routingID: routingID)
        counters.connections = connected.count
        return routingID
    }

    private func drain() {
        for _ in 0..<4096 {
            let message: (bytes: [UInt8], valid: Bool)?
            do {
                message = try socket.tryReceive { frames in
                    frames.count == 2 ? (frames.bytes(1), true) : ([], false)
                }
            } catch {
                log.error("membership_receive_failed", ["error": "\(error)"])
                return
            }
            guard let message else { return }
            guard message.valid else {
                counters.refused += 1
                continue
            }
            var sender: String?
            if let security {
                // The ZAP handler answered a member's key with "node:ID KEY"; nothing else gets
                // in, and a key revoked (or given to another member) since then is refused here.
                guard let member = security.policy.member(ofUser: socket.receivedProperty("User-Id")) else {
                    counters.refused += 1
                    continue
                }
                sender = member
            }
            counters.received += 1
            deliver?(message.bytes, sender)
        }
    }

    func close() {
        if let timer { reactor.cancelTimer(timer) }
        timer = nil
        if let reader { reactor.removeReader(reader) }
        reader = nil
        deliver = nil
        admissions = nil
        socket.close()
    }
}

/// The membership socket as a lookup's answer finds it: gone once the node stopped.
private final class WeakMembershipSocket {
    weak var socket: MembershipSocket?
    init(_ socket: MembershipSocket) { self.socket = socket }
}

/// What a secured node's membership socket needs: its live CURVE policy (server side, members
/// only; client side, each member's key as of now).
struct MembershipSecurity {
    let policy: ZapPolicy

    init(_ policy: ZapPolicy) {
        self.policy = policy
    }
}
