import RexControl
import RexFeeds
import RexMembership

/// The membership's promises over a run: no member declared dead while neither it nor the
/// member that declared it was impaired or lossy (see ``Fault/impaired``, ``Fault/lossy``) —
/// each death counted once, at its origin, the first report of it; deaths under loss alone
/// counted; and at the end every running node sees every other alive.
struct MembershipChecker {
    /// Deaths declared, and those that were false positives.
    private(set) var deaths = 0
    private(set) var falsePositives: [String] = []
    /// Deaths where only loss touched the member or its prober: counted, not failures.
    private(set) var underLoss = 0

    /// Reads `history`'s status reports against `timeline`; `window` is how long a suspicion can
    /// last before it turns into a death.
    mutating func check(_ history: History, timeline: FaultTimeline, lossy: FaultTimeline, window: Duration, nodes: Int) {
        var seen: Set<String> = []
        for change in history.statusChanges where change.status == .dead {
            let key = "\(change.member)@\(change.incarnation)"
            guard seen.insert(key).inserted else { continue }
            deaths += 1
            guard let member = Self.index(of: change.member, nodes: nodes) else { continue }
            let span = max(change.at - window, .zero)...change.at
            guard !timeline.impaired(member, during: span), !timeline.impaired(change.observer, during: span) else { continue }
            if lossy.impaired(member, during: span) || lossy.impaired(change.observer, during: span) {
                underLoss += 1
            } else {
                falsePositives.append("n\(change.observer + 1) declared \(change.member) dead at \(change.at) with neither impaired")
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
