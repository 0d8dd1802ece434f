/// What one node's journal was given and what it acknowledged, across its restarts: the
/// history the durability checker reads.
///
/// `written` holds every operator action appended to the file, in order; `acknowledged` how
/// many of them (a prefix: acknowledgements follow fsyncs in order) were answered as committed.
/// A restart checks what it recovered against both, then continues from what it recovered.
final class DurabilityLog<Action: Equatable> {
    struct Violation: CustomStringConvertible {
        let node: String
        let message: String
        var description: String { "\(node): \(message)" }
    }

    let node: String
    private(set) var written: [Action] = []
    private(set) var acknowledged = 0
    private(set) var refused = 0
    /// Over the whole run: actions acknowledged, and recoveries checked.
    private(set) var totalAcknowledged = 0
    private(set) var recoveries = 0
    private(set) var violations: [Violation] = []

    init(node: String) {
        self.node = node
    }

    func wrote(_ action: Action) { written.append(action) }

    func acknowledge(_ count: Int) {
        acknowledged += count
        totalAcknowledged += count
    }

    func refuse() { refused += 1 }

    /// A restart recovered `actions`: acknowledged ⊆ recovered ⊆ written (both prefixes).
    func recovered(_ actions: [Action]) {
        recoveries += 1
        if actions.count < acknowledged {
            violations.append(
                Violation(
                    node: node,
                    message: "lost acknowledged actions: \(acknowledged) acknowledged, \(actions.count) recovered "
                        + "(first lost: \(written[actions.count]))"))
        }
        if actions.count > written.count || actions != Array(written.prefix(actions.count)) {
            violations.append(
                Violation(node: node, message: "recovered \(actions.count) actions that are not a prefix of the \(written.count) written"))
        }
        written = actions
        acknowledged = actions.count
    }
}
