/// One fault the nemesis injects, for a while.
enum Fault: Equatable, CustomStringConvertible {
    /// Both directions cut between the two groups.
    case partition([Int], [Int])
    /// Messages from `from` to `to` cut, the other way open.
    case oneWayCut(from: [Int], to: [Int])
    /// Each message to or from `node` lost with this probability.
    case loss(node: Int, probability: Double)
    /// The node's process not scheduled (SIGSTOP).
    case pause(Int)
    /// `kill -9` and a power cut; the node restarts when the fault ends.
    case kill(Int)
    /// The node's clock jumps ahead once.
    case clockJump(Int, Duration)
    /// Every fsync of the node takes this long.
    case slowDisk(Int, Duration)
    /// The node's disk takes no more bytes; it restarts when the fault ends if its journal failed.
    case fullDisk(Int)

    var description: String {
        func names(_ nodes: [Int]) -> String { nodes.map { "n\($0 + 1)" }.joined(separator: ",") }
        switch self {
        case .partition(let a, let b): return "partition {\(names(a))} | {\(names(b))}"
        case .oneWayCut(let from, let to): return "cut {\(names(from))} -> {\(names(to))}"
        case .loss(let node, let probability): return "loss n\(node + 1) \(Int(probability * 100))%"
        case .pause(let node): return "pause n\(node + 1)"
        case .kill(let node): return "kill n\(node + 1)"
        case .clockJump(let node, let amount): return "clock-jump n\(node + 1) +\(amount)"
        case .slowDisk(let node, let latency): return "slow-disk n\(node + 1) \(latency)"
        case .fullDisk(let node): return "full-disk n\(node + 1)"
        }
    }

    /// The nodes whose links or process it touches in a way a prober cannot see through (cut,
    /// paused, down, clock moved, or loss heavy enough to hide most probes): a member declared
    /// dead while it is touched by none of these is a false positive.
    var impaired: [Int] {
        switch self {
        case .partition(let a, let b): return a + b
        case .oneWayCut(let from, let to): return from + to
        case .loss(let node, let probability): return probability > 0.15 ? [node] : []
        case .pause(let node), .kill(let node), .clockJump(let node, _): return [node]
        case .slowDisk, .fullDisk: return []
        }
    }
}
