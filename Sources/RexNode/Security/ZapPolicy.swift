import RexCluster
import RexControl
import ZMQ

/// Who may connect to a secured node, per socket: the decision of its ZAP handler, with no I/O
/// (tested on its own).
///
/// * `rex.control` (the control ROUTER): an operator's key, answered with its key as the
///   connection's `User-Id`, which the control service maps back to the operator's role;
/// * `rex.data` (the publisher): a member's key, answered with `node:ID`.
///
/// Anything else — another domain, another mechanism, an unknown key — is refused.
struct ZapPolicy {
    static let controlDomain = "rex.control"
    static let dataDomain = "rex.data"
    /// How long a connection to a secured server socket may take to finish its handshake
    /// (libzmq's default is 30 s): a peer that opens connections and never completes them holds
    /// each for this long at most.
    static let handshakeInterval = Duration.seconds(5)

    /// Makes `socket` a CURVE server of this node under `domain` (before bind).
    func makeServer(_ socket: ZMQSocket, domain: String) throws(ZMQError) {
        try socket.makeCurveServer(keyPair, zapDomain: domain)
        try socket.setOption(.handshakeInterval, Self.handshakeInterval)
    }

    let keyPair: ZMQCurveKeyPair
    /// Member keys → node id.
    let members: [ZMQCurveKey: String]
    /// Publisher endpoint → the key its node must prove.
    let publisherKeys: [String: ZMQCurveKey]
    /// Operator keys (by Z85 text, the `User-Id`) → operator.
    let operators: [String: OperatorsFile.Operator]
    /// The node's security counters (one object, shared by every copy of the policy).
    let counters = SecurityCounters()

    /// Decodes and checks every key: the secret must yield the public key the file states.
    init(_ security: NodeSecurity) throws(NodeError) {
        guard let secret = security.keys.secretKey.flatMap(ZMQCurveKey.init(z85:)) else {
            throw NodeError(.invalidConfiguration, "the node's key file has no usable secret key")
        }
        let pair: ZMQCurveKeyPair
        do { pair = try ZMQCurveKeyPair(secretKey: secret) } catch {
            throw NodeError(.invalidConfiguration, "cannot use the node's secret key: \(error)")
        }
        guard pair.publicKey.z85 == security.keys.publicKey else {
            throw NodeError(
                .invalidConfiguration,
                "the node's key file is inconsistent: its secret key does not belong to its public key"
                    + " — make a new pair with: rexctl keygen FILE")
        }
        keyPair = pair
        var members: [ZMQCurveKey: String] = [:]
        var publisherKeys: [String: ZMQCurveKey] = [:]
        for member in security.members {
            guard let key = ZMQCurveKey(z85: member.key) else {
                throw NodeError(.invalidConfiguration, "node \(member.id)'s key in the cluster file is not a CURVE key")
            }
            members[key] = member.id
            if let pub = member.pub { publisherKeys[pub] = key }
        }
        self.members = members
        self.publisherKeys = publisherKeys
        var operators: [String: OperatorsFile.Operator] = [:]
        for entry in security.operators.operators {
            guard ZMQCurveKey(z85: entry.key) != nil else {
                throw NodeError(.invalidConfiguration, "operator \(entry.name)'s key is not a CURVE key")
            }
            operators[entry.key] = entry
        }
        self.operators = operators
    }

    func decide(_ request: ZMQZapRequest) -> ZMQZapDecision {
        guard request.mechanism == "CURVE", let key = request.clientKey else {
            return .deny(reason: "CURVE required")
        }
        switch request.domain {
        case Self.controlDomain:
            return operators[key.z85] != nil ? .allow(userID: key.z85) : .deny(reason: "unknown operator key")
        case Self.dataDomain:
            return members[key].map { .allow(userID: "node:\($0)") } ?? .deny(reason: "not a cluster member")
        default:
            return .deny(reason: "unknown domain")
        }
    }

    /// The role of the operator whose connection carries `userID` (nil: none, refuse).
    func role(ofUser userID: String?) -> OperatorRole? {
        userID.flatMap { operators[$0]?.role }
    }

    /// The operator's name for logs.
    func name(ofUser userID: String?) -> String {
        userID.flatMap { operators[$0]?.name } ?? "unknown"
    }
}
