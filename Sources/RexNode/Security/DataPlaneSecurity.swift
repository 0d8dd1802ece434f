import RexCluster
import ZMQ

/// The CURVE setup of a secured node's data plane: its publisher is a CURVE server (members
/// only, see `ZapPolicy`), and each subscriber connection expects the key of the node that
/// publishes at that endpoint — the key the cluster file gives it.
struct DataPlaneSecurity {
    let keyPair: ZMQCurveKeyPair
    /// Publisher endpoint → its node's key.
    let publisherKeys: [String: ZMQCurveKey]
    private let policy: ZapPolicy

    init(_ policy: ZapPolicy) {
        self.policy = policy
        keyPair = policy.keyPair
        publisherKeys = policy.publisherKeys
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
    ///   file does not know): a secured node does not connect where it cannot check the key.
    func expectPublisherKey(of endpoint: String, on socket: ZMQSocket) throws(ZMQError) {
        guard let key = publisherKeys[endpoint] else {
            throw ZMQError(
                code: .invalidArgument, errno: 0,
                message: "no cluster member publishes at \(endpoint), so its CURVE key is unknown"
                    + " (a secured node connects only to publishers the cluster file lists with a key)",
                function: "connect", operation: "connect \(endpoint)")
        }
        try socket.setOption(.curveServerKey, key)
    }
}
