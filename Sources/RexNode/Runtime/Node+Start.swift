import Foundation
public import RexCluster
import RexControl
import RexFeeds
import SwiftRex
import ZMQ

extension Node {
    /// Validates the configuration, binds the sockets and starts the store.
    ///
    /// The steps, in order: recover the durable state (before anything binds, so a data
    /// directory that cannot be used stops the start with nothing open); on the reactor thread,
    /// bind the sockets, build the store from the configured and recovered state, and start the
    /// control service and the metrics endpoint. A step that fails closes what the ones before
    /// it opened.
    ///
    /// - Throws: `NodeError` with `.invalidConfiguration` for bad input, `.unusableState` when the
    ///   data directory cannot be used, `.socketFailure` when a socket cannot be bound (the
    ///   message names the endpoint and the reason).
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
        let durable: DurableRuntime?
        do {
            durable = try recoverDurableState(configuration, reactor: reactor, log: log)
        } catch {
            reactor.stop()
            terminate(context, afterFailedStart: log)
            throw NodeError(.unusableState, error.message)
        }
        do {
            let node = try reactor.sync { () throws -> Node in
                let sockets = try NodeSockets.bind(configuration, policy: policy, context: context, reactor: reactor, log: log)
                let store = makeStore(configuration, sockets: sockets, policy: policy, durable: durable, reactor: reactor, log: log)
                return startServices(
                    configuration, sockets: sockets, store: store, policy: policy, durable: durable, context: context,
                    reactor: reactor, startedAt: startedAt, log: log)
            }
            logStarted(node, configuration, secured: policy != nil, log: log)
            return node
        } catch {
            durable?.close()
            reactor.stop()
            terminate(context, afterFailedStart: log)
            throw NodeError(.socketFailure, (error as? ZMQError)?.description ?? "\(error)")
        }
    }

    /// The durable state of a node with a data directory, recovered (or refused) and logged.
    private static func recoverDurableState(
        _ configuration: NodeConfiguration, reactor: Reactor, log: NodeLogger
    ) throws(DurableStateError) -> DurableRuntime? {
        guard let options = configuration.durable else { return nil }
        let opened = try DurableRuntime.open(options, reactor: reactor, log: log)
        log.info("recovered", opened.report.fields.merging(["data_dir": options.directory, "durability": options.mode.rawValue]) { $1 })
        return opened
    }

    /// The node's store on its reactor: the configured state with the recovered one restored
    /// onto it, the live transport, and the SWIM membership of its configured members.
    private static func makeStore(
        _ configuration: NodeConfiguration, sockets: NodeSockets, policy: ZapPolicy?, durable: DurableRuntime?,
        reactor: Reactor, log: NodeLogger
    ) -> Store<NodeAction, NodeState, NodeEnvironment> {
        var membershipPlan = Node.membershipPlan(
            configuration, address: MemberAddress(membership: sockets.membership.endpoint, pub: sockets.io.pubEndpoint))
        // Secured: only members with a key may be learned (a stolen key cannot gossip a stranger in).
        membershipPlan.admittedIDs = policy.map { Set($0.members.values) }
        sockets.io.membershipStats = membershipPlan.stats
        var initial = NodeState(id: configuration.id, settings: configuration.settings)
        for (peer, endpoint) in configuration.peers { initial.peers[peer] = Peer(endpoint: endpoint) }
        if let durable { initial = durable.recovered.restore(onto: initial) }
        // A configured member an operator removed (journaled) is not probed back in.
        membershipPlan.members = membershipPlan.members.filter { initial.peers[$0.key] != nil }
        let clock = ContinuousClock()
        let environment = NodeEnvironment(
            transport: .live(ReactorBound(sockets.io, on: reactor)), settings: configuration.settings, clock: clock, log: log,
            membership: membershipPlan)
        return Store(
            initial: initial, behavior: NodeFeature.behavior, environment: environment, clock: clock, executor: .custom(reactor),
            options: StoreOptions(
                channelClassifier: ChannelKind.classifier,
                onDiagnostic: { log.warning("store_diagnostic", ["kind": $0.kind.rawValue, "message": $0.message]) }))
    }

    /// Starts the control service (through the journal, with a data directory) and the metrics
    /// endpoint, and assembles the node.
    private static func startServices(
        _ configuration: NodeConfiguration, sockets: NodeSockets, store: Store<NodeAction, NodeState, NodeEnvironment>,
        policy: ZapPolicy?, durable: DurableRuntime?, context: ZMQContext, reactor: Reactor,
        startedAt: ContinuousClock.Instant, log: NodeLogger
    ) -> Node {
        let io = sockets.io
        let controlEndpoint = sockets.controlEndpoint(asked: configuration.controlEndpoint)
        let dispatch = durable?.makeDispatch(store: store, reactor: reactor, nodeID: configuration.id)
        let service = ControlService(
            socket: sockets.control, reactor: reactor,
            node: .init(id: configuration.id, pub: io.pubEndpoint, control: controlEndpoint, startedAt: startedAt),
            store: store, io: io, log: log, policy: policy, durable: dispatch)
        service.start()
        let metrics = sockets.metrics.map { socket in
            let endpoint = MetricsEndpoint(
                socket: socket, reactor: reactor,
                sampler: NodeMetricsSampler(
                    store: store, io: io, startedAt: startedAt, controlRequests: service.requests, journal: dispatch),
                nodeID: configuration.id, log: log)
            endpoint.start()
            return ReactorBound(endpoint, on: reactor)
        }
        return Node(
            id: configuration.id, pubEndpoint: io.pubEndpoint, controlEndpoint: controlEndpoint, store: store,
            reactor: reactor, context: context, io: ReactorBound(io, on: reactor), control: ReactorBound(service, on: reactor),
            metricsEndpoint: sockets.metricsEndpoint(asked: configuration.metricsEndpoint), metrics: metrics, log: log,
            membershipEndpoint: sockets.membership.endpoint,
            gatekeeper: sockets.gatekeeper.map { ReactorBound($0, on: reactor) }, durable: durable)
    }

    /// The `started` line, and the warning of a node running without CURVE.
    private static func logStarted(_ node: Node, _ configuration: NodeConfiguration, secured: Bool, log: NodeLogger) {
        log.info(
            "started",
            [
                "pub": node.pubEndpoint, "control": node.controlEndpoint, "membership": node.membershipEndpoint,
                "metrics": node.metricsEndpoint ?? "off", "peers": "\(configuration.peers.count)",
                "security": secured ? "curve" : "none",
            ])
        guard !secured else { return }
        log.warning(
            "insecure",
            [
                "message": "running without CURVE: anyone who can reach \(node.controlEndpoint) commands this node"
                    + " and anyone who can reach \(node.pubEndpoint) reads it (see README, Security)"
            ])
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

}
