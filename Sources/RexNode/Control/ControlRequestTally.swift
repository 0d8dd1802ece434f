import RexCluster
import RexControl

/// Control requests answered since start, by operation and result: the metrics document's
/// `controlRequests` (`rexnode_control_requests_total{op, result}`).
///
/// Both keys come from the node, never from the request's text: the operation is a
/// `ControlOperation` (or `invalid` when the request could not be read) and the result `ok` or a
/// `ControlError.Code` the node chose, so the table stays a few dozen entries whatever clients send.
///
/// Used on the reactor only (the control service counts there; the metrics samplers copy it
/// there), like the other reactor-confined state of a node.
final class ControlRequestTally {
    /// The operation of a request that could not be read (not JSON, too large, a bad `v`, an
    /// unknown `op`, a field missing or mistyped).
    static let invalidOperation = "invalid"
    static let ok = "ok"

    private(set) var counts: [String: [String: Int]] = [:]

    func count(_ operation: ControlOperation?, _ result: String) {
        let op = operation?.rawValue ?? Self.invalidOperation
        let (sum, overflow) = counts[op, default: [:]][result, default: 0].addingReportingOverflow(1)
        counts[op, default: [:]][result] = overflow ? Int.max : sum
    }

    func count(_ operation: ControlOperation?, _ error: ControlError) { count(operation, error.code.rawValue) }
}
