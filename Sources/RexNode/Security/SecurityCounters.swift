import RexCluster
import RexControl
import Synchronization

/// What a secured node's gatekeeper and control service count, shared by reference between them
/// (each holds the node's `ZapPolicy`, which carries it) and read into the metrics. Atomics: the
/// writers run on the reactor, but the policy is made before the reactor starts.
final class SecurityCounters: Sendable {
    private let allowed = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)
    private let forbiddenCount = Atomic<Int>(0)

    func handshakeAllowed() { allowed.wrappingAdd(1, ordering: .relaxed) }
    func handshakeRefused() { refused.wrappingAdd(1, ordering: .relaxed) }
    func forbidden() { forbiddenCount.wrappingAdd(1, ordering: .relaxed) }

    var document: MetricsDocument.Security {
        MetricsDocument.Security(
            handshakesAllowed: allowed.load(ordering: .relaxed), handshakesRefused: refused.load(ordering: .relaxed),
            forbidden: forbiddenCount.load(ordering: .relaxed))
    }
}
