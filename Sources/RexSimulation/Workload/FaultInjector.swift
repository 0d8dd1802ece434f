/// Carries faults out on the world and takes them back: link cuts and loss recomputed from the
/// faults active now (so overlapping faults heal independently), pauses, kills and restarts,
/// clock jumps, slow and full disks. Records when each node was impaired.
final class FaultInjector<Feature: SimulatedFeature> {
    static var normalFsync: Duration { .milliseconds(2) }

    private let world: SimWorld
    private let nodes: [SimNode<Feature>]
    private var active: [Int: Fault] = [:]
    private(set) var timeline: FaultTimeline
    private(set) var degraded: FaultTimeline
    private(set) var injected = 0

    init(world: SimWorld, nodes: [SimNode<Feature>]) {
        self.world = world
        self.nodes = nodes
        timeline = FaultTimeline(nodes: nodes.count)
        degraded = FaultTimeline(nodes: nodes.count)
    }

    func begin(_ id: Int, _ fault: Fault) {
        let now = world.loop.now
        injected += 1
        world.history.note(20, node: 0, "fault \(id) begins: \(fault)")
        active[id] = fault
        for node in Set(fault.impaired).sorted() { timeline.begin(node, at: now) }
        for node in fault.degraded { degraded.begin(node, at: now) }
        switch fault {
        case .partition, .oneWayCut, .loss, .slowLink: recomputeLinks()
        case .pause(let node): world.loop.setPaused(node, true)
        case .kill(let node): nodes[node].kill()
        case .killMidWrite(let node):
            let loop = world.loop
            nodes[node].disk.onNextFsync = { [nodes] latency in loop.at(loop.now + latency / 2) { nodes[node].kill() } }
        case .clockJump(let node, let amount):
            world.loop.jump(domain: node, by: amount)
            timeline.end(node, at: now + .seconds(1))
        case .slowDisk(let node, let latency): nodes[node].disk.fsyncLatency = latency
        case .fullDisk(let node): nodes[node].disk.capacity = nodes[node].disk.size
        }
        world.network.unstall()
    }

    func end(_ id: Int) {
        guard let fault = active.removeValue(forKey: id) else { return }
        let now = world.loop.now
        world.history.note(21, node: 0, "fault \(id) ends: \(fault)")
        for node in Set(fault.impaired).sorted() {
            if case .clockJump = fault { continue }
            timeline.end(node, at: now)
        }
        for node in fault.degraded { degraded.end(node, at: now) }
        switch fault {
        case .partition, .oneWayCut, .loss, .slowLink: recomputeLinks()
        case .pause(let node):
            if !isActive({ $0 == .pause(node) }) { world.loop.setPaused(node, false) }
        case .kill(let node), .killMidWrite(let node):
            nodes[node].disk.onNextFsync = nil
            if !nodes[node].isUp { nodes[node].start() }
        case .clockJump: break
        case .slowDisk(let node, _):
            if !isActive({ if case .slowDisk(node, _) = $0 { true } else { false } }) { nodes[node].disk.fsyncLatency = Self.normalFsync }
        case .fullDisk(let node):
            nodes[node].disk.capacity = nil
            // The journal failed: it takes nothing more until a restart, as an operator would do.
            if nodes[node].process?.dispatch.failure != nil {
                nodes[node].kill()
                nodes[node].start()
            }
        }
        world.network.unstall()
    }

    /// Ends every active fault and starts every node that is down.
    func healAll() {
        for id in active.keys.sorted() { end(id) }
        for node in nodes where !node.isUp { node.start() }
    }

    private func isActive(_ predicate: (Fault) -> Bool) -> Bool { active.values.contains(where: predicate) }

    private func recomputeLinks() {
        var links = world.network.faults
        links.healAll()
        for id in active.keys.sorted() {
            switch active[id]! {
            case .partition(let a, let b):
                for x in a { for y in b { links.setCut(x, y, true); links.setCut(y, x, true) } }
            case .oneWayCut(let from, let to):
                for x in from { for y in to { links.setCut(x, y, true) } }
            case .loss(let node, let probability):
                for other in 0..<nodes.count where other != node {
                    links.setLoss(node, other, max(links.loss(node, other), probability))
                    links.setLoss(other, node, max(links.loss(other, node), probability))
                }
            case .slowLink(let node, let delay):
                for other in 0..<nodes.count where other != node {
                    links.setDelay(node, other, max(links.delay(node, other), delay))
                    links.setDelay(other, node, max(links.delay(other, node), delay))
                }
            default: break
            }
        }
        world.network.faults = links
    }
}
