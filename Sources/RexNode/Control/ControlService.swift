import Foundation
import RexCluster
import RexControl
import SwiftRex
import ZMQ

/// The node's control endpoint: a ROUTER socket on the reactor thread answering the control
/// protocol (docs/protocol.md) with the typed documents of RexControl.
///
/// Every request gets exactly one reply, echoing the frames before the payload (the ROUTER
/// identity, and the empty delimiter of a REQ client). A malformed request gets an error reply
/// and changes nothing. Nothing here blocks the reactor for long: `state`, `keep` and `metrics`
/// are built and encoded on the cooperative pool and only sent from the reactor.
final class ControlService<Feature: ClusterFeature> {
    private let socket: ZMQSocket
    private let reactor: Reactor
    private var reader: ReaderToken?
    private let node: NodeInfo
    private let store: Store<Feature.Action, Feature.State, Feature.Environment>
    private let io: NodeIO
    private let log: NodeLogger
    private let limits: NodeLimits
    private var bound: ReactorBound<ControlService<Feature>>?
    /// With a data directory: operator actions go through the journal (answered after commit).
    private let durable: DurableDispatch<Feature>?
    /// The operator actions the node takes.
    private let catalog = Feature.operatorActions
    /// The open watches (set up by `start()`).
    private(set) var watchers: ControlWatchers<Feature>?
    /// Requests answered, by operation and result (for the metrics).
    let requests = ControlRequestTally()
    var acceptingDispatch = true
    /// Secured: who each connection is (its ZAP `User-Id`) and what that operator may do.
    private let policy: ZapPolicy?

    struct NodeInfo: Sendable {
        let id: String
        let pub: String
        let control: String
        let startedAt: ContinuousClock.Instant

        var uptimeMs: Int { (ContinuousClock.now - startedAt).wholeMilliseconds }
    }

    init(
        socket: ZMQSocket, reactor: Reactor, node: NodeInfo, store: Store<Feature.Action, Feature.State, Feature.Environment>,
        io: NodeIO, limits: NodeLimits, log: NodeLogger, policy: ZapPolicy? = nil, durable: DurableDispatch<Feature>? = nil
    ) {
        self.policy = policy
        self.durable = durable
        self.socket = socket
        self.reactor = reactor
        self.node = node
        self.store = store
        self.io = io
        self.log = log
        self.limits = limits
    }

    func start() {
        let bound = ReactorBound(self, on: reactor)
        self.bound = bound
        // Mandatory routing: a send to a client that is gone fails instead of vanishing, and a
        // client whose queue is full is refused at once, so a watch can be dropped for it.
        do {
            try socket.setOption(.routerMandatory, true)
        } catch {
            log.warning("control_option_failed", ["option": "routerMandatory", "error": "\(error)"])
        }
        let node = self.node
        watchers = ControlWatchers(
            store: store, bound: bound, uptimeMs: { node.uptimeMs }, maxReplyBytes: limits.maxReplyBytes, log: log
        ) { [unowned self] envelope, payload in send(envelope, payload) }
        if let durable {
            let mode = durable.mode
            // Weak: the journal's last reports may come after this service is gone.
            durable.answer = { [weak self] envelope, id, action in
                self?.reply(envelope, ControlReply(id: id, .success(DispatchDocument(accepted: true, action: action, durability: mode))))
            }
            durable.refuse = { [weak self] envelope, id, error in self?.refuse(envelope, id: id, error) }
        }
        reader = reactor.addReader(socket) { [unowned self] in drain() }
    }

    func close() {
        watchers?.close()
        watchers = nil
        if let reader { reactor.removeReader(reader) }
        reader = nil
        bound = nil
        socket.close()
    }

    private func drain() {
        for _ in 0..<256 {
            let message: [[UInt8]]?
            do {
                message = try socket.tryReceiveMultipart()
            } catch {
                log.error("control_receive_failed", ["error": "\(error)"])
                return
            }
            guard let message else { return }
            handle(message, user: policy == nil ? nil : socket.receivedProperty("User-Id"))
        }
    }

    /// The most frames a request may have (``ControlFrames/maxFrames``).
    static var maxFrames: Int { ControlFrames.maxFrames }

    private func handle(_ frames: [[UInt8]], user: String? = nil) {
        let envelope = Array(frames.dropLast())
        let payload = frames.last ?? []
        guard frames.count <= Self.maxFrames else {
            // The receive stopped keeping frames past the limit: the envelope cannot be
            // trusted to route a reply, so the request is dropped (and logged).
            log.warning("control_request_refused", ["code": "badRequest", "message": "more than \(Self.maxFrames) frames"])
            requests.count(nil, ControlError.Code.badRequest.rawValue)
            return
        }
        guard payload.count <= limits.maxRequestBytes else {
            requests.count(nil, ControlError.Code.tooLarge.rawValue)
            refuse(
                envelope, id: .null,
                ControlError(
                    .tooLarge,
                    "the request has \(payload.count) bytes; "
                        + "this node accepts at most \(limits.maxRequestBytes) (--max-request-bytes)"))
            return
        }
        let (id, request) = ControlRequest<JSONValue>.read(payload)
        // Nil while the request is unreadable (an action of a bad form included): counted as
        // an invalid request, not as its operation.
        var operation: ControlOperation?
        do throws(ControlError) {
            let request = try request.get()
            // An action's form is read with the request: its role decides who may send it.
            let reading = try request.action.map { json throws(ControlError) in try catalog.read(json) }
            operation = request.operation
            try authorize(request.operation, requiring: reading?.description.role ?? .viewer, user: user)
            try perform(request, reading, envelope: envelope, id: id)
            // The documents built off the reactor count when their reply is settled (respondLater).
            if let operation, !Self.answeredLater.contains(operation) { requests.count(operation, ControlRequestTally.ok) }
        } catch {
            requests.count(operation, error)
            refuse(envelope, id: id, error)
        }
    }

    private func perform(
        _ request: ControlRequest<JSONValue>, _ reading: OperatorActionCatalog<Feature.Action, Feature.State>.Reading?,
        envelope: [[UInt8]], id: JSONValue
    ) throws(ControlError) {
        switch request.operation {
        case .ping:
            reply(
                envelope,
                ControlReply(
                    id: id,
                    .success(
                        PingDocument(
                            node: node.id, uptimeMs: node.uptimeMs, pub: node.pub, control: node.control,
                            pid: Int(ProcessInfo.processInfo.processIdentifier), feature: Feature.identity))))
        case .dispatch:
            guard acceptingDispatch else { throw ControlError(.shuttingDown, "node \(node.id) is shutting down") }
            guard let reading else { throw ControlError(.badRequest, "'action' must be a JSON object with a 'type'") }
            let action = try catalog.action(reading, within: limits)
            // The action as the node took it: optional fields left empty are left out.
            let echo = catalog.json(action) ?? .null
            if let durable {
                try durable.submit(action, echo, envelope: envelope, id: id)
                return
            }
            try catalog.checkRoom(for: action, in: store.state, limits: limits, node: node.id)
            store.dispatch(action)
            // Formatting an action (reflection) costs more than the rest of its dispatch: only
            // when the line is written.
            if log.level <= .debug { log.debug("dispatched", ["action": "\(action)"]) }
            reply(envelope, ControlReply(id: id, .success(DispatchDocument(accepted: true, action: echo))))
        case .state:
            // A copy of the state is one retain; encoding it (100k follows: hundreds of ms)
            // happens off the reactor. Its clock is the node's uptime as the request is read.
            let state = Feature.stamped(store.state, nowMs: node.uptimeMs)
            respondLater(.state, envelope, id) { _ in state }
        case .keep:
            let nowMs = node.uptimeMs
            respondLater(.keep, envelope, id) { store in KeepDocument(await store.keep(), nowMs: nowMs) }
        case .metrics:
            respondLater(
                .metrics, envelope, id,
                NodeMetricsSampler<Feature>(
                    store: store, io: io, startedAt: node.startedAt, controlRequests: requests, journal: durable
                ).sample())
        case .watch:
            guard let watchers else { throw ControlError(.shuttingDown, "node \(node.id) is shutting down") }
            try watchers.watch(
                envelope: envelope, id: id, documents: request.documents ?? WatchedDocument.allCases,
                leaseMs: request.leaseMs ?? WatchPolicy.defaultLeaseMs)
        case .renew:
            let renewed = watchers?.renew(envelope: envelope, id: request.watch) ?? RenewDocument(renewed: 0)
            reply(envelope, ControlReply(id: id, .success(renewed)))
        case .unwatch:
            let ended = watchers?.unwatch(envelope: envelope, id: request.watch) ?? UnwatchDocument(unwatched: 0)
            reply(envelope, ControlReply(id: id, .success(ended)))
        case .statement:
            reply(envelope, ControlReply(id: id, .success(try Self.receipt(request.statement ?? "", io.authority, node: node.id))))
        }
    }

    /// A secured node checks the operator's role before anything else happens: any operator
    /// may read; an action needs the role its description asks for.
    private func authorize(_ operation: ControlOperation, requiring required: OperatorRole, user: String?) throws(ControlError) {
        guard let policy else { return }
        guard let role = policy.role(ofUser: user) else {
            policy.counters.forbidden()
            throw ControlError(.forbidden, "this connection is not an operator's (no known key)")
        }
        guard role.includes(required) else {
            policy.counters.forbidden()
            throw ControlError(
                .forbidden,
                "operator \(policy.name(ofUser: user)) has role \(role.rawValue), which may not '\(operation.rawValue)'"
                    + " (only \(required.rawValue) may; ask for an \(required.rawValue) key)")
        }
    }

    /// The operations answered by ``respondLater(_:_:_:_:)``.
    static var answeredLater: Set<ControlOperation> { ControlFrames.answeredLater }

    /// Builds the result off the reactor (it may await the store), encodes the whole reply
    /// there too, then sends it from the reactor — or `tooLarge` if it is over the limit.
    private func respondLater<Payload: Encodable & Sendable>(
        _ operation: ControlOperation, _ envelope: [[UInt8]], _ id: JSONValue,
        _ build: @escaping @Sendable (Store<Feature.Action, Feature.State, Feature.Environment>) async -> Payload
    ) {
        guard let bound else { return }
        let store = self.store
        let maxReply = limits.maxReplyBytes
        Task {
            let payload = await build(store)
            let reply = Result { try ControlCodec.encode(ControlReply(id: id, .success(payload))) }
            bound.reactor.execute {
                switch reply {
                case .success(let bytes) where bytes.count <= maxReply:
                    bound.value.requests.count(operation, ControlRequestTally.ok)
                    bound.value.send(envelope, bytes)
                case .success(let bytes):
                    let error = ControlError(
                        .tooLarge,
                        "the reply would have \(bytes.count) bytes; "
                            + "this node sends at most \(maxReply) (--max-reply-bytes)")
                    bound.value.requests.count(operation, error)
                    bound.value.refuse(envelope, id: id, error)
                case .failure(let error):
                    let refusal = ControlError(.badRequest, "the reply cannot be encoded: \(error)")
                    bound.value.requests.count(operation, refusal)
                    bound.value.refuse(envelope, id: id, refusal)
                }
            }
        }
    }

    /// An error reply (logged: a refusal is worth a line).
    private func refuse(_ envelope: [[UInt8]], id: JSONValue, _ error: ControlError) {
        log.warning("control_request_refused", ["code": error.code.rawValue, "message": error.message])
        reply(envelope, ControlReply<JSONValue>.refusing(id: id, error))
    }

    private func reply<Payload>(_ envelope: [[UInt8]], _ reply: ControlReply<Payload>) {
        do {
            send(envelope, try ControlCodec.encode(reply))
        } catch {
            log.error("control_reply_unencodable", ["error": "\(error)"])
        }
    }

    /// Sends one reply without blocking; false when it was not queued (the client is gone, or
    /// its queue is full).
    @discardableResult
    private func send(_ envelope: [[UInt8]], _ payload: [UInt8]) -> Bool {
        guard !socket.isClosed else { return false }
        do {
            return try socket.sendMultipart(envelope + [payload], flags: [.dontWait])
        } catch {
            // Mostly EHOSTUNREACH: the client left before its answer was ready.
            log.debug("control_reply_failed", ["error": "\(error)"])
            return false
        }
    }
}
