import Glibc
import RexCluster
import RexControl
import RexFeeds
import RexMembership
import SwiftRex

/// Runs one simulation of a feeds cluster: N nodes of the real store, feature, membership and
/// durable logic over the simulated network, clock and disk; the workload and the nemesis for
/// `duration`; then every fault healed, every node up, `settle` more; then the checkers.
///
/// Synchronous, on the calling thread, which must run nothing else meanwhile (see ``SimLoop``).
public enum Simulation {
    public static func run(_ config: SimulationConfig) -> SimulationReport {
        precondition(config.nodes >= 2, "a simulation needs at least 2 nodes")
        let loop = SimLoop(domains: config.nodes)
        return loop.perform { SimulationRun(config, loop: loop).run() }
    }
}

/// The state of one run (see ``Simulation/run(_:)``).
private final class SimulationRun {
    let config: SimulationConfig
    let loop: SimLoop
    let history: History
    let world: SimWorld
    let nodes: [SimNode<NodeFeature>]
    let injector: FaultInjector<NodeFeature>
    let workload: FeedsWorkload
    let keepSet = KeepSetChecker()
    var violations: [Violation] = []

    init(_ config: SimulationConfig, loop: SimLoop) {
        self.config = config
        self.loop = loop
        history = History(keepLines: config.keepTrace) { [unowned loop] in loop.now }
        var seeds = MembershipRandom(seed: config.seed)
        let network = SimNetwork(loop: loop, nodes: config.nodes, seed: seeds.next(), highWaterMark: 1000, history: history)
        world = SimWorld(
            loop: loop, network: network, history: history, nodeCount: config.nodes, settings: NodeSettings(),
            membershipSettings: MembershipSettings(), seed: seeds.next())
        let world = world
        nodes = (0..<config.nodes).map { SimNode(index: $0, world: world) }
        injector = FaultInjector(world: world, nodes: nodes)
        workload = FeedsWorkload(world: world, nodes: nodes, seed: seeds.next(), meanGap: config.actionGap)
        if config.faults {
            let nemesis = Nemesis(seed: seeds.next(), nodes: config.nodes, from: .seconds(3), until: config.duration)
            for (id, entry) in nemesis.entries.enumerated() {
                loop.at(entry.start) { [injector] in injector.begin(id, entry.fault) }
                loop.at(entry.end) { [injector] in injector.end(id) }
            }
        }
    }

    func run() -> SimulationReport {
        for node in nodes { node.start() }
        workload.start(until: config.duration)
        scheduleSamples(until: config.duration + config.settle)
        var finished = loop.run(until: config.duration)
        injector.healAll()
        finished = finished && loop.run(until: config.duration + config.settle)
        if !finished { violations.append(Violation(checker: "liveness", message: loop.livelock ?? "the loop stopped")) }
        for node in nodes where node.isUp { sample(node) }
        loop.drain()
        checkAtEnd()
        let report = makeReport()
        tearDown()
        return report
    }

    private func scheduleSamples(until end: Duration) {
        let next = loop.now + config.sampleEvery
        guard next < end else { return }
        loop.at(next) { [self] in
            for node in nodes where node.isUp && !loop.isPaused(node.index) { sample(node) }
            scheduleSamples(until: end)
        }
    }

    private func sample(_ node: SimNode<NodeFeature>) {
        guard let process = node.process else { return }
        keepSet.sample(process, node: node.id, at: loop.now)
    }

    private func checkAtEnd() {
        let states = nodes.compactMap { node in node.process.map { (index: node.index, state: $0.store.state) } }
        let convergence = ConvergenceChecker.check(states)
        violations += convergence.violations
        var membership = MembershipChecker()
        let settings = world.membershipSettings
        let floor = settings.protocolPeriod * (settings.suspicionMultiplier * max(1, log10(Double(config.nodes))))
        membership.check(
            history, timeline: injector.timeline, degraded: injector.degraded,
            window: floor * settings.suspicionMaximumMultiplier + settings.protocolPeriod * 10,
            shortestSuspicion: settings.protocolPeriod * settings.suspicionMultiplier - .milliseconds(1), nodes: config.nodes)
        violations += membership.falsePositives.map { Violation(checker: "membership", message: "false positive: \($0)") }
        violations += membership.converged(states)
        violations += keepSet.violations
        // Every acknowledged action must survive one more crash of every node.
        for node in nodes {
            node.kill()
            node.durability.recovered(SimJournal.recover(node.disk.contents, catalog: NodeFeature.operatorActions).actions)
        }
        for node in nodes {
            violations += node.durability.violations.map { Violation(checker: "durability", message: $0.description) }
        }
        deaths = membership.deaths
        deathsDegraded = membership.degraded
        followsChecked = convergence.checked
    }

    private var deaths = 0
    private var deathsDegraded = 0
    private var followsChecked = 0

    private func makeReport() -> SimulationReport {
        let counters = world.network.counters
        let figures: [(String, String)] = [
            ("simulated seconds", "\(Double((config.duration + config.settle) / .milliseconds(1)) / 1000)"),
            ("loop steps", "\(loop.steps)"),
            ("faults injected", "\(injector.injected)"),
            ("actions submitted / journaled / refused", "\(workload.submitted) / \(workload.queued) / \(workload.refused)"),
            ("actions acknowledged", "\(nodes.reduce(0) { $0 + $1.durability.totalAcknowledged })"),
            ("node starts", "\(nodes.reduce(0) { $0 + $1.starts })"),
            (
                "frames sent / delivered / retransmitted / at HWM / dropped on close",
                "\(counters.sent) / \(counters.delivered) / \(counters.retransmitted) / \(counters.droppedAtHighWaterMark) / \(counters.droppedOnClose)"
            ),
            ("members declared dead (of them with degraded links)", "\(deaths) (\(deathsDegraded))"),
            ("keep-set samples", "\(keepSet.samples)"),
            ("follows checked for convergence", "\(followsChecked)"),
        ]
        return SimulationReport(
            config: config, traceHash: history.hash.hex, events: history.events, violations: violations.map(\.description),
            figures: figures, trace: history.lines)
    }

    /// Releases every process and ends every sleep, so no task outlives the run.
    private func tearDown() {
        for node in nodes { node.kill() }
        loop.drain()
        for node in nodes { node.clock.cancelAll() }
        loop.drain()
    }
}
