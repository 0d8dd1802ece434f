import RexFeeds
import RexMembership

/// Operators working a feeds cluster: every few hundred milliseconds an action to a random node
/// that is up — mostly a new value for one of its feeds, sometimes a follow (of another node's
/// topic or prefix, from every member or from one), an unfollow or an unset. Every value is
/// unique, so the journal's history can be matched action for action.
final class FeedsWorkload {
    static let feedsPerNode = 3
    static let followsPerNode = 6

    private let world: SimWorld
    private let nodes: [SimNode<NodeFeature>]
    private var random: MembershipRandom
    private let meanGap: Duration
    private var counter = 0
    private(set) var submitted = 0
    private(set) var queued = 0
    private(set) var refused = 0

    init(world: SimWorld, nodes: [SimNode<NodeFeature>], seed: UInt64, meanGap: Duration = .milliseconds(100)) {
        self.world = world
        self.nodes = nodes
        self.random = MembershipRandom(seed: seed)
        self.meanGap = meanGap
    }

    /// Every node's first feeds and follows at once, then actions until `until`.
    func start(until: Duration) {
        for node in nodes {
            for key in 0..<Self.feedsPerNode { submit(.set(topic: topic(node.index, key), value: nextValue()), to: node) }
            for name in 0..<Self.followsPerNode / 2 { submit(randomFollow(of: node.index, name: name), to: node) }
        }
        scheduleNext(until: until)
    }

    private func scheduleNext(until: Duration) {
        let gap = Duration.microseconds(Int64(random.next() % UInt64(2 * (meanGap / .microseconds(1)))))
        let time = world.loop.now + gap
        guard time < until else { return }
        world.loop.at(time) { [self] in
            step()
            scheduleNext(until: until)
        }
    }

    private func step() {
        let up = nodes.filter(\.isUp)
        guard !up.isEmpty else { return }
        let node = up[random.index(below: up.count)]
        let roll = random.index(below: 100)
        let action: NodeAction
        switch roll {
        case 0..<70: action = .set(topic: topic(node.index, random.index(below: Self.feedsPerNode)), value: nextValue())
        case 70..<85: action = randomFollow(of: node.index, name: random.index(below: Self.followsPerNode))
        case 85..<93: action = .unfollow(name: "f\(random.index(below: Self.followsPerNode))")
        case 93..<97: action = .unset(topic: topic(node.index, random.index(below: Self.feedsPerNode)))
        default: action = .publish(topic: "\(SimNetwork.id(node.index)).event", payload: nextValue())
        }
        submit(action, to: node)
    }

    private func submit(_ action: NodeAction, to node: SimNode<NodeFeature>) {
        submitted += 1
        world.history.note(30, node: node.index, "submit \(action)")
        node.submit(action) { [self] outcome in
            switch outcome {
            case .queued: queued += 1
            case .refused(let code):
                refused += 1
                world.history.note(31, node: node.index, "refused \(code)")
            }
        }
    }

    private func topic(_ node: Int, _ key: Int) -> String { "\(SimNetwork.id(node)).k\(key)" }

    private func nextValue() -> String {
        counter += 1
        return "v\(counter)"
    }

    private func randomFollow(of node: Int, name: Int) -> NodeAction {
        var other = random.index(below: nodes.count - 1)
        if other >= node { other += 1 }
        let topic = random.chance(0.15) ? "\(SimNetwork.id(other)).*" : self.topic(other, random.index(below: Self.feedsPerNode))
        let from = random.chance(0.3) ? SimNetwork.id(other) : nil
        return .follow(name: "f\(name)", topic: topic, from: from)
    }
}
