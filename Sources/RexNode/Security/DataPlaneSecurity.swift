import RexCluster
import ZMQ

/// The CURVE setup of a secured node's data plane: its publisher is a CURVE server (members
/// only, see `ZapPolicy`), and each subscriber connection expects the key of the member that
/// publishes at that endpoint — the key the node's live policy gives that member now.
struct DataPlaneSecurity {
    let keyPair: ZMQCurveKeyPair
    /// The node's live policy (shared: a statement it accepts changes the next connect).
    let policy: ZapPolicy

    init(_ policy: ZapPolicy) {
        self.policy = policy
        keyPair = policy.keyPair
    }

    /// The node's security counters (for the metrics).
    var counters: SecurityCounters { policy.counters }

    /// Makes the node's publisher a CURVE server that lets in members only (before bind).
    func makePublisher(_ socket: ZMQSocket) throws(ZMQError) {
        try policy.makeServer(socket, domain: ZapPolicy.dataDomain)
    }

    /// Sets the server key `socket`'s next connect expects: the key of the member publishing at
    /// `endpoint`. libzmq copies a socket's options at each connect, so a shared subscriber
    /// connected to every peer checks each one against its own key.
    ///
    /// - Throws: when no member publishes at `endpoint` (a peer added by hand that the cluster
    ///   file does not know, and the membership did not report), or its member has no key any
    ///   more (revoked): a secured node does not connect where it cannot check the key.
    func expectPublisherKey(of endpoint: String, on socket: ZMQSocket) throws(ZMQError) {
        guard let key = policy.serverKey(ofPublisher: endpoint) else {
            let member = policy.publisher(at: endpoint)
            throw ZMQError(
                code: .invalidArgument, errno: 0,
                message: member.map { "member \($0), publishing at \(endpoint), has no admitted key (revoked)" }
                    ?? "no cluster member publishes at \(endpoint), so its CURVE key is unknown"
                    + " (a secured node connects only to publishers of members with a key)",
                function: "connect", operation: "connect \(endpoint)")
        }
        try socket.setOption(.curveServerKey, key)
    }
}
