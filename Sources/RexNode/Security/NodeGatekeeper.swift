import RexCluster
import ZMQ

/// A secured node's ZAP handler on its reactor: answers every handshake to the node's CURVE
/// sockets from the `ZapPolicy`, and logs refusals (the first ones in full, then one in a
/// thousand, so a peer retrying every 100 ms cannot flood the log).
final class NodeGatekeeper {
    let policy: ZapPolicy
    private let zap: ZMQZapHandler
    private let reactor: Reactor
    private let log: NodeLogger
    private var reader: ReaderToken?

    static let refusalsLoggedInFull = 20

    /// Binds the context's ZAP handler (before any CURVE socket binds) and watches it.
    init(policy: ZapPolicy, context: ZMQContext, reactor: Reactor, log: NodeLogger) throws(ZMQError) {
        reactor.checkIsolated()
        self.policy = policy
        self.reactor = reactor
        self.log = log
        zap = try ZMQZapHandler(context: context)
        reader = reactor.addReader(zap.socket) { [unowned self] in answer() }
    }

    var counters: ZMQZapHandler.Counters { zap.counters }

    private func answer() {
        zap.answerPending { request in
            let decision = policy.decide(request)
            switch decision {
            case .allow: policy.counters.handshakeAllowed()
            case .deny: policy.counters.handshakeRefused()
            }
            if case .deny(let reason) = decision {
                let refused = zap.counters.denied + 1
                if refused <= Self.refusalsLoggedInFull || refused % 1000 == 0 {
                    log.warning(
                        "connection_refused",
                        [
                            "socket": request.domain, "address": request.address, "mechanism": request.mechanism,
                            "key": request.clientKey.map { String($0.z85.prefix(8)) + "…" } ?? "-", "reason": reason,
                            "refused": "\(refused)",
                        ])
                }
            }
            return decision
        }
    }

    func close() {
        if let reader { reactor.removeReader(reader) }
        reader = nil
        zap.close()
    }
}
