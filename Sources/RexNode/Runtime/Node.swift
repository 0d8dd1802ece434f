import Foundation
public import RexCluster
public import RexControl
public import RexFeeds
public import SwiftRex
import Synchronization
import ZMQ

/// One running node: a store on its own reactor thread, its sockets, and its control endpoint.
///
/// ```swift
/// let node = try Node.start(NodeConfiguration(id: "n1", pubEndpoint: "tcp://127.0.0.1:*",
///                                            controlEndpoint: "tcp://127.0.0.1:*"))
/// node.dispatch(.set(topic: "eu.prices", value: "42"))
/// await node.stop()
/// ```
public final class Node: Sendable {
    public let id: String
    /// The resolved publisher endpoint (with the real port when bound to `:*`).
    public let pubEndpoint: String
    /// The resolved control endpoint.
    public let controlEndpoint: String
    /// The resolved HTTP metrics endpoint, when the node serves one.
    public let metricsEndpoint: String?
    /// The resolved SWIM membership endpoint (what a peer's `--peer` or `--join` names).
    public let membershipEndpoint: String
    public let store: Store<NodeAction, NodeState, NodeEnvironment>
    public let reactor: Reactor
    private let context: ZMQContext
    private let io: ReactorBound<NodeIO>
    private let control: ReactorBound<ControlService>
    private let metrics: ReactorBound<MetricsEndpoint>?
    /// The ZAP handler of a secured node (nil: the node runs plain).
    private let gatekeeper: ReactorBound<NodeGatekeeper>?
    private let durable: DurableRuntime?
    private let log: NodeLogger
    private let stopped = Mutex(false)
    private let trimmer = MemoryTrimmer()

    private init(
        id: String, pubEndpoint: String, controlEndpoint: String, store: Store<NodeAction, NodeState, NodeEnvironment>,
        reactor: Reactor, context: ZMQContext, io: ReactorBound<NodeIO>, control: ReactorBound<ControlService>,
        metricsEndpoint: String?, metrics: ReactorBound<MetricsEndpoint>?, log: NodeLogger, membershipEndpoint: String,
        gatekeeper: ReactorBound<NodeGatekeeper>? = nil, durable: DurableRuntime? = nil
    ) {
        self.membershipEndpoint = membershipEndpoint
        self.gatekeeper = gatekeeper
        self.durable = durable
        self.id = id
        self.metricsEndpoint = metricsEndpoint
        self.metrics = metrics
        self.pubEndpoint = pubEndpoint
        self.controlEndpoint = controlEndpoint
        self.store = store
        self.reactor = reactor
        self.context = context
        self.io = io
        self.control = control
        self.log = log
    }

    /// Validates the configuration, binds the sockets and starts the store.
    ///
    /// - Throws: `NodeError` with `.invalidConfiguration` for bad input, `.socketFailure` when a
    ///   socket cannot be bound (the message names the endpoint and the reason).
    public static func start(_ configuration: NodeConfiguration, logger: NodeLogger? = nil) throws(NodeError) -> Node {
        try configuration.validate()
        let log = logger ?? NodeLogger(nodeID: configuration.id, level: configuration.logLevel, format: configuration.logFormat)
        let policy = try configuration.security.map { security throws(NodeError) in try ZapPolicy(security) }
        let context: ZMQContext
        do { context = try ZMQContext() } catch {
            throw NodeError(.socketFailure, "cannot create a ZeroMQ context: \(error)")
        }
        let reactor = Reactor(name: "rexnode-\(configuration.id)")
        let startedAt = ContinuousClock.now
        // The durable state first: recovered (or refused) before anything binds.
        let durable: DurableRuntime?
        if let options = configuration.durable {
            do {
                let opened = try DurableRuntime.open(options, reactor: reactor, log: log)
                log.info(
                    "recovered", opened.report.fields.merging(["data_dir": options.directory, "durability": options.mode.rawValue]) { $1 })
                durable = opened
            } catch {
                reactor.stop()
                terminate(context, afterFailedStart: log)
                throw NodeError(.unusableState, error.message)
            }
        } else {
            durable = nil
        }
        do {
            let node = try reactor.sync { () throws -> Node in
                let limits = configuration.settings.limits
                // What is open so far, closed newest first if a later step throws.
                var opened: [() -> Void] = []
                // The ZAP handler binds first: a CURVE socket's handshakes need it from the start.
                let gatekeeper: NodeGatekeeper?
                let io: NodeIO
                let controlSocket: ZMQSocket
                var metricsSocket: ZMQSocket?
                let membershipSocket: MembershipSocket
                do {
                    gatekeeper = try policy.map { policy throws(ZMQError) in
                        try NodeGatekeeper(policy: policy, context: context, reactor: reactor, log: log)
                    }
                    if let gatekeeper { opened.append(gatekeeper.close) }
                    io = try NodeIO(
                        nodeID: configuration.id, epoch: Node.newEpoch(), limits: limits, context: context,
                        reactor: reactor, pubEndpoint: configuration.pubEndpoint, log: log,
                        security: policy.map(DataPlaneSecurity.init)
                    )
                    opened.append(io.close)
                    let control = try context.socket(.router)
                    opened.append(control.close)
                    if let policy { try policy.makeServer(control, domain: ZapPolicy.controlDomain) }
                    // A request past the hard cap costs its sender the connection, before libzmq
                    // allocates it; up to it the client gets an error reply (see ControlService).
                    try control.setOption(.maxMessageSize, limits.maxControlFrameBytes)
                    control.receiveFrameLimit = ControlService.maxFrames
                    try control.bind(configuration.controlEndpoint)
                    controlSocket = control
                    if let endpoint = configuration.metricsEndpoint {
                        let socket = try context.socket(.stream)
                        opened.append(socket.close)
                        // Raw TCP: a message is [routing id, bytes]; nothing longer is valid.
                        socket.receiveFrameLimit = 2
                        try socket.bind(endpoint)
                        metricsSocket = socket
                    }
                    membershipSocket = try MembershipSocket(
                        context: context, reactor: reactor, endpoint: configuration.membershipEndpoint, log: log,
                        security: policy.map(MembershipSecurity.init))
                } catch {
                    for close in opened.reversed() { close() }
                    throw error
                }
                io.membership = membershipSocket
                var membershipPlan = Node.membershipPlan(
                    configuration, address: MemberAddress(membership: membershipSocket.endpoint, pub: io.pubEndpoint))
                // Secured: only members with a key may be learned (a stolen key cannot gossip a stranger in).
                membershipPlan.admittedIDs = policy.map { Set($0.members.values) }
                io.membershipStats = membershipPlan.stats
                let boundIO = ReactorBound(io, on: reactor)
                var initial = NodeState(id: configuration.id, settings: configuration.settings)
                for (peer, endpoint) in configuration.peers { initial.peers[peer] = Peer(endpoint: endpoint) }
                if let durable { initial = durable.recovered.restore(onto: initial) }
                // A configured member an operator removed (journaled) is not probed back in.
                membershipPlan.members = membershipPlan.members.filter { initial.peers[$0.key] != nil }
                let clock = ContinuousClock()
                let environment = NodeEnvironment(
                    transport: .live(boundIO), settings: configuration.settings, clock: clock, log: log, membership: membershipPlan
                )
                let store = Store(
                    initial: initial, behavior: NodeFeature.behavior, environment: environment, clock: clock,
                    executor: .custom(reactor),
                    options: StoreOptions(
                        channelClassifier: ChannelKind.classifier,
                        onDiagnostic: { log.warning("store_diagnostic", ["kind": $0.kind.rawValue, "message": $0.message]) })
                )
                let controlEndpoint = ((try? controlSocket.lastEndpoint) ?? nil) ?? configuration.controlEndpoint
                let dispatch = durable?.makeDispatch(store: store, reactor: reactor, nodeID: configuration.id)
                let service = ControlService(
                    socket: controlSocket, reactor: reactor,
                    node: .init(id: configuration.id, pub: io.pubEndpoint, control: controlEndpoint, startedAt: startedAt),
                    store: store, io: io, log: log, policy: policy, durable: dispatch
                )
                service.start()
                var metrics: MetricsEndpoint?
                var metricsEndpoint: String?
                if let metricsSocket {
                    metricsEndpoint = ((try? metricsSocket.lastEndpoint) ?? nil) ?? configuration.metricsEndpoint
                    let endpoint = MetricsEndpoint(
                        socket: metricsSocket, reactor: reactor,
                        sampler: NodeMetricsSampler(
                            store: store, io: io, startedAt: startedAt, controlRequests: service.requests, journal: dispatch),
                        nodeID: configuration.id,
                        log: log)
                    endpoint.start()
                    metrics = endpoint
                }
                return Node(
                    id: configuration.id, pubEndpoint: io.pubEndpoint, controlEndpoint: controlEndpoint, store: store,
                    reactor: reactor, context: context, io: boundIO, control: ReactorBound(service, on: reactor),
                    metricsEndpoint: metricsEndpoint, metrics: metrics.map { ReactorBound($0, on: reactor) }, log: log,
                    membershipEndpoint: membershipSocket.endpoint,
                    gatekeeper: gatekeeper.map { ReactorBound($0, on: reactor) }, durable: durable
                )
            }
            log.info(
                "started",
                [
                    "pub": node.pubEndpoint, "control": node.controlEndpoint, "membership": node.membershipEndpoint,
                    "metrics": node.metricsEndpoint ?? "off",
                    "peers": "\(configuration.peers.count)", "security": policy == nil ? "none" : "curve",
                ])
            if policy == nil {
                log.warning(
                    "insecure",
                    [
                        "message": "running without CURVE: anyone who can reach \(node.controlEndpoint) commands this node"
                            + " and anyone who can reach \(node.pubEndpoint) reads it (see README, Security)"
                    ])
            }
            return node
        } catch let error as ZMQError {
            durable?.close()
            reactor.stop()
            terminate(context, afterFailedStart: log)
            throw NodeError(.socketFailure, error.description)
        } catch {
            durable?.close()
            reactor.stop()
            terminate(context, afterFailedStart: log)
            throw NodeError(.socketFailure, "\(error)")
        }
    }

    /// Terminates the context of a start that failed. Everything the start opened is closed by
    /// then, so a socket still open is a leak: it is logged (as `stop` logs one), not swallowed,
    /// and the context is left to its deinit.
    private static func terminate(_ context: ZMQContext, afterFailedStart log: NodeLogger) {
        do {
            try context.terminate(timeout: .seconds(1))
        } catch {
            log.error("context_terminate_failed", ["error": "\(error)"])
        }
    }

    /// A new epoch for a starting node: random, so a restart is told apart from the run before it
    /// (a chance of 1 in 4 billion that two runs share one). 32 bits rather than 64: the epoch
    /// travels in every message head, and ten digits instead of twenty cost 10 bytes less per
    /// message (measured: +25 % of the I/O threads' CPU per 16-byte message with 20 digits).
    static func newEpoch() -> UInt64 {
        UInt64(UInt32.random(in: 1...UInt32.max))
    }

    /// The SWIM membership of a node at `address`: its configured members (each needs both
    /// endpoints), an incarnation above any earlier run's (the wall clock in ms) and a random seed.
    static func membershipPlan(_ configuration: NodeConfiguration, address: MemberAddress) -> MembershipPlan {
        var members: [String: MemberAddress] = [:]
        for (id, membership) in configuration.membershipPeers {
            if let pub = configuration.peers[id] { members[id] = MemberAddress(membership: membership, pub: pub) }
        }
        let wallMilliseconds = UInt64(clamping: Int64(Date().timeIntervalSince1970 * 1000))
        var plan = MembershipPlan(
            address: address, incarnation: wallMilliseconds, seed: UInt64.random(in: 0...UInt64.max), members: members,
            seeds: configuration.membershipSeeds)
        // Validated to 20...10,000 ms, so neither product can overflow.
        plan.settings.protocolPeriod = .milliseconds(configuration.membershipPeriodMs)
        plan.settings.pingTimeout = .milliseconds(configuration.membershipPeriodMs * 2 / 5)
        return plan
    }

    /// Queues an action on the node's store (from any thread). Not journaled: with a data
    /// directory, only the operator actions accepted on the control endpoint are durable.
    public func dispatch(_ action: NodeAction) {
        store.dispatch(action)
    }

    /// Topics (and prefixes) that peers are subscribed to at this node's publisher. An exact
    /// topic shows as `topic`, a prefix as `prefix*`.
    public func publisherSubscriptions() -> Set<String> {
        let io = self.io
        return
            (try? reactor.sync {
                Set(
                    io.value.publisher.remoteSubscriptions.keys.map(\.bytes).map { bytes in
                        bytes.last == 0 ? String(decoding: bytes.dropLast(), as: UTF8.self) : String(decoding: bytes, as: UTF8.self) + "*"
                    })
            }) ?? []
    }

    /// Whether peers hold a subscription to each of these exact topics at this node's publisher:
    /// `publisherSubscriptions().isSuperset(of: topics)` without building every subscription as a
    /// string on the reactor (a benchmark polls this while the reactor works).
    public func publisherIsSubscribed(toAll topics: [String]) -> Bool {
        let keys = topics.map(SubscriptionBytes.init(exactTopic:))
        let io = self.io
        return (try? reactor.sync { keys.allSatisfy { io.value.publisher.remoteSubscriptions[$0] != nil } }) ?? false
    }

    /// Sockets this node has open, and distinct subscriptions on its shared subscriber.
    public func socketCounts() -> (open: Int, sharedSubscriptions: Int) {
        let io = self.io
        return (try? reactor.sync { (io.value.flushAndCount().socketsOpen, io.value.subscriber.sharedSubscriptionCount) }) ?? (0, 0)
    }

    /// Messages published and received so far.
    public func messageCounts() -> (published: Int, received: Int) {
        let io = self.io
        return
            (try? reactor.sync {
                let counters = io.value.flushAndCount()
                return (counters.published, counters.received)
            }) ?? (0, 0)
    }

    /// Everything the node's sockets counted so far.
    func ioCounters() -> NodeIO.Counters {
        let io = self.io
        return (try? reactor.sync { io.value.flushAndCount() }) ?? NodeIO.Counters()
    }

    /// The most published messages ever waiting in the outbox at once (it must stay within
    /// `NodePublisher.outboxLimit`).
    func outboxPeak() -> Int {
        let io = self.io
        return (try? reactor.sync { io.value.flushAndCount().outboxPeak }) ?? 0
    }

    /// The node's state as of its last processed batch.
    public var state: NodeState { store.state }

    /// Stops accepting control requests, releases the store (every channel's cancel runs once),
    /// closes every socket with linger 0, terminates the context and stops the reactor.
    public func stop() async {
        guard
            stopped.withLock({ already in
                defer { already = true }; return !already
            })
        else { return }
        log.info("stopping")
        let control = self.control
        let durable = self.durable
        try? reactor.sync {
            control.value.acceptingDispatch = false
            durable?.stopAccepting()
        }
        // The last commit, then its replies and actions (reactor jobs) before the store goes.
        durable?.close()
        try? reactor.sync {}
        await store.release()
        let io = self.io
        let metrics = self.metrics
        let gatekeeper = self.gatekeeper
        try? reactor.sync {
            metrics?.value.close()
            control.value.close()
            io.value.close()
            gatekeeper?.value.close()
        }
        do {
            try context.terminate(timeout: .seconds(1))
        } catch {
            log.error("context_terminate_failed", ["error": "\(error)"])
        }
        reactor.stop()
        trimmer.stop()
        log.info("stopped")
    }
}
