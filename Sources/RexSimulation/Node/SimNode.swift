import RexCluster
import RexControl
import RexMembership
import SwiftRex

/// One simulated node across its processes: its id, clock and disk (which outlive a process),
/// the history of its journal, and the process running now, started the way the runtime starts
/// one — journal recovered and folded (`OperatorActionFold`), restored onto the configured state
/// by the feature's own `restore`, then a store on its executor with the cluster environment
/// over the simulated transport, clock and SWIM membership.
final class SimNode<Feature: SimulatedFeature> {
    let index: Int
    let id: String
    let clock: SimClock
    let disk = SimDisk()
    let durability: DurabilityLog<Feature.Action>
    private(set) var process: SimProcess<Feature>?
    private(set) var starts = 0
    private unowned let world: SimWorld

    init(index: Int, world: SimWorld) {
        self.index = index
        self.world = world
        id = SimNetwork.id(index)
        clock = SimClock(loop: world.loop, domain: index)
        durability = DurabilityLog(node: id)
    }

    var isUp: Bool { process != nil }

    /// Starts a process: recovers the journal, builds the store, joins the network.
    func start() {
        precondition(process == nil, "\(id) is already running")
        starts += 1
        let catalog = Feature.operatorActions
        let recovery = SimJournal.recover(disk.contents, catalog: catalog)
        disk.truncate(to: disk.size - recovery.discardedBytes)
        durability.recovered(recovery.actions)
        var fold = OperatorActionFold(catalog)
        for action in recovery.actions { fold.apply(action) }

        let others = (0..<world.nodeCount).filter { $0 != index }
        let peers = Dictionary(uniqueKeysWithValues: others.map { (SimNetwork.id($0), SimNetwork.pubEndpoint($0)) })
        let initial = Feature.restore(fold, onto: Feature.initialState(NodeStart(id: id, settings: world.settings, peers: peers)))

        let loop = world.loop
        let executor = loop.makeExecutor(domain: index)
        let epoch = world.random.next() >> 32 | 1
        let transport = SimTransport(node: index, epoch: epoch, network: world.network, executor: executor)
        world.network.register(transport)

        let removed = fold.removedKeys
        var plan = MembershipPlan(
            address: MemberAddress(membership: SimNetwork.membershipEndpoint(index), pub: SimNetwork.pubEndpoint(index)),
            incarnation: UInt64(ClusterEnvironment.wholeMilliseconds(loop.localNow(index))) + 1, seed: world.random.next(),
            members: Dictionary(
                uniqueKeysWithValues: others.filter { !removed.contains(SimNetwork.id($0)) }.map {
                    (SimNetwork.id($0), MemberAddress(membership: SimNetwork.membershipEndpoint($0), pub: SimNetwork.pubEndpoint($0)))
                }))
        plan.settings = world.membershipSettings
        let history = world.history
        let node = index
        let log = NodeLogger(nodeID: id, level: .error, sink: { line in history.note(9, node: node, line) }, clock: { "" })
        let environment = ClusterEnvironment(
            transport: transport.transport, settings: world.settings, clock: clock, log: log, membership: plan)
        let behavior = Feature.behavior.reduce { action, _ in
            guard let report = Feature.memberReport(in: action) else { return }
            history.statusChanged(observer: node, member: report.member, status: report.status, incarnation: report.incarnation)
        }
        let store = Store(
            initial: initial, behavior: behavior, environment: Feature.environment(environment), clock: clock,
            executor: .custom(executor),
            options: StoreOptions(
                channelClassifier: Feature.channelClassifier,
                onDiagnostic: { history.note(8, node: node, "diagnostic \($0.kind.rawValue): \($0.message)") }))
        let dispatch = SimDurableDispatch<Feature>(
            store: store, disk: disk, log: durability, transport: transport, loop: loop, limits: world.settings.limits, nodeID: id)
        process = SimProcess(
            executor: executor, transport: transport, store: store, dispatch: dispatch, recoveredActions: recovery.actions.count,
            discardedBytes: recovery.discardedBytes)
        history.note(
            10, node: index, "start #\(starts) recovered \(recovery.actions.count) actions, discarded \(recovery.discardedBytes) bytes")
    }

    /// `kill -9` and a power cut: the process vanishes, and of the journal bytes never
    /// fsync'd a random prefix survives (a torn last write).
    func kill() {
        guard let process else { return }
        process.kill()
        self.process = nil
        let pending = disk.pending.count
        let keep = pending == 0 ? 0 : Int(world.random.next() % UInt64(pending + 1))
        disk.crash(keeping: keep)
        world.history.note(11, node: index, "kill (journal: \(pending) bytes not fsync'd, \(keep) kept)")
    }

    /// Hands an operator action to the running process (on its executor); `done` gets the
    /// outcome, or nothing if the process dies first.
    func submit(_ action: Feature.Action, _ done: @escaping (SimDurableDispatch<Feature>.Outcome) -> Void) {
        guard let process else { return }
        process.transport.onExecutor { [durability] in
            let outcome = process.dispatch.submit(action)
            if case .refused = outcome { durability.refuse() }
            done(outcome)
        }
    }
}
