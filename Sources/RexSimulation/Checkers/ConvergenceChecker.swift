import RexFeeds

/// Every follow converges once the faults heal: a follow of an exact topic holds its feed's
/// value as the publishing node holds it now; a follow of a prefix, for the topic it heard last,
/// that topic's value now (nothing is in flight by then, and a connection keeps order). A follow `from` a member other than the topic's publisher hears nothing, and is not
/// judged; nor is a topic its publisher no longer has.
enum ConvergenceChecker {
    static func check(_ states: [(index: Int, state: NodeState)]) -> (checked: Int, violations: [Violation]) {
        var publishers: [String: NodeState] = [:]
        for (_, state) in states { publishers[state.id] = state }
        var checked = 0
        var violations: [Violation] = []
        for (_, state) in states {
            for name in state.follows.keys.sorted() {
                let follow = state.follows[name]!
                guard let dot = follow.topic.firstIndex(of: ".") else { continue }
                let owner = String(follow.topic[..<dot])
                guard let publisher = publishers[owner], follow.from == nil || follow.from == owner else { continue }
                if follow.topic.hasSuffix("*") {
                    // The last message a prefix follow accepted was the latest of its topic.
                    let prefix = follow.topic.dropLast()
                    guard publisher.feeds.keys.contains(where: { $0.hasPrefix(prefix) }) else { continue }
                    checked += 1
                    guard let topic = follow.lastTopic else {
                        violations.append(
                            Violation(checker: "convergence", message: "\(state.id) follow \(name) (\(follow.topic)) received nothing"))
                        continue
                    }
                    guard let expected = publisher.feeds[topic]?.value, follow.lastValue != expected else { continue }
                    violations.append(
                        Violation(
                            checker: "convergence",
                            message: "\(state.id) follow \(name) (\(follow.topic)) holds \(follow.lastValue ?? "nothing") of \(topic), "
                                + "\(owner) holds \(expected)"))
                    continue
                }
                guard let expected = publisher.feeds[follow.topic]?.value else { continue }
                checked += 1
                if follow.lastValue != expected {
                    violations.append(
                        Violation(
                            checker: "convergence",
                            message: "\(state.id) follow \(name) (\(follow.topic)\(follow.from.map { " from \($0)" } ?? "")) "
                                + "holds \(follow.lastValue ?? "nothing"), \(owner) holds \(expected)"))
                }
            }
        }
        return (checked, violations)
    }
}
