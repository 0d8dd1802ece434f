/// One fault the nemesis injects, for a while.
enum Fault: Equatable, CustomStringConvertible {
    /// Both directions cut between the two groups.
    case partition([Int], [Int])
    /// Messages from `from` to `to` cut, the other way open.
    case oneWayCut(from: [Int], to: [Int])
    /// Each message to or from `node` lost with this probability.
    case loss(node: Int, probability: Double)
    /// Every message to or from `node` this much later (slower than a probe's timeout, far
    /// quicker than a suspicion's: the member can talk, and must not be declared dead).
    case slowLink(node: Int, delay: Duration)
    /// The node's process not scheduled (SIGSTOP).
    case pause(Int)
    /// `kill -9` and a power cut; the node restarts when the fault ends.
    case kill(Int)
    /// The same, at the node's next fsync, while it runs: what was written and not yet
    /// durable is torn.
    case killMidWrite(Int)
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
        case .slowLink(let node, let delay): return "slow-link n\(node + 1) +\(delay)"
        case .pause(let node): return "pause n\(node + 1)"
        case .kill(let node): return "kill n\(node + 1)"
        case .killMidWrite(let node): return "kill-mid-write n\(node + 1)"
        case .clockJump(let node, let amount): return "clock-jump n\(node + 1) +\(amount)"
        case .slowDisk(let node, let latency): return "slow-disk n\(node + 1) \(latency)"
        case .fullDisk(let node): return "full-disk n\(node + 1)"
        }
    }

    /// The nodes it cuts off, stops or confuses (cut, paused, down, clock moved): a member
    /// declared dead while it or its prober is one of these is no false positive.
    var impaired: [Int] {
        switch self {
        case .partition(let a, let b): return a + b
        case .oneWayCut(let from, let to): return from + to
        case .pause(let node), .kill(let node), .killMidWrite(let node), .clockJump(let node, _): return [node]
        case .loss, .slowLink, .slowDisk, .fullDisk: return []
        }
    }

    /// The nodes whose links lose (over TCP, a stall of a retransmission timeout) or are slow
    /// (past a probe's timeout): a member declared dead while its own links were degraded is
    /// counted, not a failure — its peers may well fail to hear it refute in time.
    var degraded: [Int] {
        switch self {
        case .loss(let node, _), .slowLink(let node, _): return [node]
        default: return []
        }
    }
}
