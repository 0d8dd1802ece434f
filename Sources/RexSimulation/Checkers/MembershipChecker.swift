import RexControl
import RexFeeds
import RexMembership

/// The membership's promises over a run:
/// - a suspect has at least the shortest suspicion timeout to refute: nobody declares it dead
///   sooner after its first suspicion (unless the declarer's clock jumped);
/// - no member is declared dead while neither it nor its prober — the member that suspected it
///   first — was impaired (``Fault/impaired``: cut off, paused, down, clock jumped) over the
///   suspicion's window; where either one's links were degraded (``Fault/degraded``: lossy or
///   slow) the death is counted, not a failure;
/// - at the end every running node sees every other alive.
///
/// Deaths are judged once per member and incarnation.
struct MembershipChecker {
    /// Deaths declared, those where a link was degraded, and the broken promises.
    private(set) var deaths = 0
    private(set) var degraded = 0
    private(set) var falsePositives: [String] = []

    /// Reads `history`'s status reports against the fault timelines; `window` is how long a
    /// suspicion can last, `shortestSuspicion` the least it lasts.
    mutating func check(
        _ history: History, timeline: FaultTimeline, degraded links: FaultTimeline, window: Duration, shortestSuspicion: Duration,
        nodes: Int
    ) {
        var firstSuspicion: [String: (at: Duration, by: Int)] = [:]
        var judged: Set<String> = []
        for change in history.statusChanges {
            let key = "\(change.member)@\(change.incarnation)"
            if change.status == .suspect, firstSuspicion[key] == nil { firstSuspicion[key] = (change.at, change.observer) }
            guard change.status == .dead, let member = Self.index(of: change.member, nodes: nodes) else { continue }
            if let first = firstSuspicion[key], change.at - first.at < shortestSuspicion,
                !timeline.impaired(change.observer, during: first.at...change.at)
            {
                falsePositives.append(
                    "n\(change.observer + 1) declared \(change.member) dead at \(change.at), \(change.at - first.at) after its "
                        + "first suspicion (the shortest timeout is \(shortestSuspicion))")
            }
            guard judged.insert(key).inserted else { continue }
            deaths += 1
            let prober = firstSuspicion[key]?.by ?? change.observer
            let span = max(change.at - window, .zero)...change.at
            guard !timeline.impaired(member, during: span), !timeline.impaired(prober, during: span) else { continue }
            if links.impaired(member, during: span) || links.impaired(prober, during: span) {
                degraded += 1
            } else {
                falsePositives.append(
                    "\(change.member) declared dead at \(change.at) (first by n\(change.observer + 1), suspected first by "
                        + "n\(prober + 1)): neither impaired nor degraded")
            }
        }
    }

    /// Every running node's view of every other at the end.
    func converged(_ states: [(index: Int, state: NodeState)]) -> [Violation] {
        var violations: [Violation] = []
        for (index, state) in states {
            for (other, _) in states where other != index {
                let id = SimNetwork.id(other)
                let status = state.peers[id]?.membership
                if status != .alive {
                    violations.append(
                        Violation(
                            checker: "membership",
                            message: "n\(index + 1) sees \(id) \(status?.rawValue ?? "unknown") after the faults healed"))
                }
            }
        }
        return violations
    }

    static func index(of id: String, nodes: Int) -> Int? {
        guard id.hasPrefix("n"), let number = Int(id.dropFirst()), number >= 1, number <= nodes else { return nil }
        return number - 1
    }
}
