import RexAuthority
import RexCluster
import RexControl
import ZMQ

/// What a secured node starts from, checked before anything binds: its CURVE key pair, whom its
/// files admit (the members of its cluster file and the operators of its operators file, as an
/// `AuthorityPolicy` of serial 0), where each member publishes, and the cluster authority whose
/// statements may change that while it runs.
///
/// A value (checked off the reactor, so a bad file stops the start as a configuration error);
/// the node's live `ZapPolicy` is made from it on the reactor.
struct SecuritySetup: Sendable {
    let keyPair: ZMQCurveKeyPair
    /// Whom the files admit (serial 0): what every statement is laid over.
    let initial: AuthorityPolicy
    /// Publisher endpoint → the member publishing there (from the cluster file).
    let publisherIDs: [String: String]
    /// The cluster authority's public key; nil: the files' keys only, for the whole run.
    let authority: AuthorityPublicKey?

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
        var members: [CurvePublicKey: String] = [:]
        var publisherIDs: [String: String] = [:]
        for member in security.members {
            guard let key = CurvePublicKey(z85: member.key) else {
                throw NodeError(.invalidConfiguration, "node \(member.id)'s key in the cluster file is not a CURVE key")
            }
            members[key] = member.id
            if let pub = member.pub { publisherIDs[pub] = member.id }
        }
        var operators: [CurvePublicKey: (name: String, role: OperatorRole)] = [:]
        for entry in security.operators.operators {
            guard let key = CurvePublicKey(z85: entry.key) else {
                throw NodeError(.invalidConfiguration, "operator \(entry.name)'s key is not a CURVE key")
            }
            operators[key] = (entry.name, entry.role)
        }
        initial = AuthorityPolicy(members: members, operators: operators)
        self.publisherIDs = publisherIDs
        authority = security.authority
    }
}
