import Foundation
import RexAuthority
public import RexCluster
import RexControl
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
    public static func start(_ configuration: NodeConfiguration, logger: NodeLogger? = nil) throws(NodeError) -> Node<Feature> {
        try configuration.validate()
        let log = logger ?? NodeLogger(nodeID: configuration.id, level: configuration.logLevel, format: configuration.logFormat)
        let setup = try configuration.security.map { security throws(NodeError) in try SecuritySetup(security) }
        let context: ZMQContext
        do { context = try ZMQContext() } catch {
            throw NodeError(.socketFailure, "cannot create a ZeroMQ context: \(error)")
        }
        let reactor = Reactor(name: "rexnode-\(configuration.id)")
        let startedAt = ContinuousClock.now
        let durable: DurableRuntime<Feature>?
        let ledger: AuthorityLedger?
        do {
            durable = try recoverDurableState(configuration, reactor: reactor, log: log)
            ledger = try loadLedger(configuration, authority: setup?.authority, log: log)
        } catch {
            reactor.stop()
            terminate(context, afterFailedStart: log)
            throw NodeError(.unusableState, error.message)
        }
        do {
            let node = try reactor.sync { () throws -> Node<Feature> in
                // The live policy: the files' keys with the statements held laid over them.
                let policy = setup.map { setup in ZapPolicy(setup, current: ledger?.policy(over: setup.initial)) }
                let sockets = try NodeSockets.bind(configuration, policy: policy, context: context, reactor: reactor, log: log)
                if let policy, let ledger {
                    let authority = NodeAuthority(
                        ledger: ledger, policy: policy, io: sockets.io, directory: configuration.durable?.directory, log: log)
                    sockets.io.authority = authority
                    authority.start()
                }
                let store = makeStore(configuration, sockets: sockets, policy: policy, durable: durable, reactor: reactor, log: log)
                return startServices(
                    configuration, sockets: sockets, store: store, policy: policy, durable: durable, context: context,
                    reactor: reactor, startedAt: startedAt, log: log)
            }
            logStarted(node, configuration, secured: setup != nil, log: log)
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
    ) throws(DurableStateError) -> DurableRuntime<Feature>? {
        guard let options = configuration.durable else { return nil }
        let opened = try DurableRuntime<Feature>.open(options, reactor: reactor, log: log)
        log.info("recovered", opened.report.fields.merging(["data_dir": options.directory, "durability": options.mode.rawValue]) { $1 })
        return opened
    }

    /// The statements a node with a cluster authority holds: its data directory's ledger (checked
    /// statement by statement), or an empty one (without a data directory, or a first start);
    /// nil without an authority.
    private static func loadLedger(
        _ configuration: NodeConfiguration, authority: AuthorityPublicKey?, log: NodeLogger
    ) throws(DurableStateError) -> AuthorityLedger? {
        guard let authority else { return nil }
        guard let directory = configuration.durable?.directory else { return AuthorityLedger(authority: authority) }
        do {
            let ledger = try AuthorityLedgerFile.load(directory: directory, authority: authority)
            log.info("authority_ledger_loaded", ["authority": authority.short, "statements": "\(ledger.count)"])
            return ledger
        } catch {
            throw DurableStateError(
                "cannot use the authority ledger \(AuthorityLedgerFile.path(in: directory)): \(error.message)")
        }
    }

    /// The node's store on its reactor: the configured state with the recovered one restored
    /// onto it, the live transport, and the SWIM membership of its configured members.
    private static func makeStore(
        _ configuration: NodeConfiguration, sockets: NodeSockets, policy: ZapPolicy?, durable: DurableRuntime<Feature>?,
        reactor: Reactor, log: NodeLogger
    ) -> Store<Feature.Action, Feature.State, Feature.Environment> {
        let membership = configuration.advertised(sockets.membership.endpoint)
        var membershipPlan = MembershipPlan(
            configuration, address: MemberAddress(membership: membership, pub: configuration.advertised(sockets.io.pubEndpoint)))
        // Not itself: every replica of a set is given the same seeds, its own name among them.
        membershipPlan.seeds.removeAll { $0 == membership }
        // Secured: only members with a key may be learned (a stolen key cannot gossip a stranger in).
        membershipPlan.admittedIDs = policy?.admittedIDs
        sockets.io.membershipStats = membershipPlan.stats
        var initial = Feature.initialState(NodeStart(id: configuration.id, settings: configuration.settings, peers: configuration.peers))
        if let durable {
            initial = Feature.restore(durable.recovered, onto: initial)
            // A configured member an operator removed (journaled) is not probed back in.
            let removed = durable.recovered.removedKeys
            membershipPlan.members = membershipPlan.members.filter { !removed.contains($0.key) }
        }
        let clock = ContinuousClock()
        let environment = ClusterEnvironment(
            transport: .live(ReactorBound(sockets.io, on: reactor)), settings: configuration.settings, clock: clock, log: log,
            membership: membershipPlan)
        return Feature.makeStore(
            initial: initial, environment: Feature.environment(environment), clock: clock, executor: .custom(reactor),
            options: StoreOptions(
                channelClassifier: Feature.channelClassifier,
                onDiagnostic: { log.warning("store_diagnostic", ["kind": $0.kind.rawValue, "message": $0.message]) }))
    }

    /// Starts the control service (through the journal, with a data directory) and the metrics
    /// endpoint, and assembles the node.
    private static func startServices(
        _ configuration: NodeConfiguration, sockets: NodeSockets, store: Store<Feature.Action, Feature.State, Feature.Environment>,
        policy: ZapPolicy?, durable: DurableRuntime<Feature>?, context: ZMQContext, reactor: Reactor,
        startedAt: ContinuousClock.Instant, log: NodeLogger
    ) -> Node<Feature> {
        let io = sockets.io
        let controlEndpoint = sockets.controlEndpoint(asked: configuration.controlEndpoint)
        let limits = configuration.settings.limits
        let dispatch = durable?.makeDispatch(store: store, reactor: reactor, limits: limits, nodeID: configuration.id)
        let service = ControlService(
            socket: sockets.control, reactor: reactor,
            node: .init(
                id: configuration.id, pub: configuration.advertised(io.pubEndpoint), control: configuration.advertised(controlEndpoint),
                startedAt: startedAt),
            store: store, io: io, limits: limits, log: log, policy: policy, durable: dispatch)
        service.start()
        let sampler = NodeMetricsSampler<Feature>(
            store: store, io: io, startedAt: startedAt, controlRequests: service.requests, journal: dispatch)
        let metrics = sockets.metrics.map { socket in
            let endpoint = MetricsEndpoint(
                socket: socket, reactor: reactor,
                sample: sampler.sampleDocument, nodeID: configuration.id, log: log,
                readiness: {
                    sampler.readinessFacts(
                        expectsMembers: !configuration.peers.isEmpty
                            || configuration.membershipSeeds.contains { $0 != configuration.advertised(sockets.membership.endpoint) })
                })
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
    private static func logStarted(_ node: Node<Feature>, _ configuration: NodeConfiguration, secured: Bool, log: NodeLogger) {
        log.info(
            "started",
            [
                "pub": node.pubEndpoint, "control": node.controlEndpoint, "membership": node.membershipEndpoint,
                "metrics": node.metricsEndpoint ?? "off", "peers": "\(configuration.peers.count)",
                "security": secured ? "curve" : "none", "advertise": configuration.advertiseHost ?? "as bound",
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
}
