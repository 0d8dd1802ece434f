import RexControl
import ZMQ

/// rexctl's own CURVE key: the key file it authenticates to secured nodes with.
enum OperatorKey {
    /// The environment variable naming the key file.
    static let environmentVariable = "REXCTL_KEY"
    /// Where the key is looked for beside the cluster file.
    static let defaultRelativePath = "keys/operator.key"

    /// Reads the key pair at `path` for talking to node `nodeID` (named in the error).
    ///
    /// - Throws: ``CommandFailure`` (exit 2) with one line saying which file and what to do.
    static func load(path: String, for nodeID: String) throws(CommandFailure) -> ZMQCurveKeyPair {
        let file: KeyFile
        do {
            file = try KeyFile.read(path: path, requiringSecret: true)
        } catch {
            throw CommandFailure(
                .nodeError,
                "node \(nodeID) is secured (the cluster file has its key), but rexctl cannot use the key file \(path):"
                    + " \(error.message) — pass --key FILE or set \(environmentVariable) (make a key with: rexctl keygen FILE,"
                    + " then list its public key in the nodes' operators file)")
        }
        guard let secret = file.secretKey.flatMap(ZMQCurveKey.init(z85:)),
            let pair = try? ZMQCurveKeyPair(secretKey: secret), pair.publicKey.z85 == file.publicKey
        else {
            throw CommandFailure(
                .nodeError,
                "the key file \(path) is inconsistent: its secret key does not belong to its public key"
                    + " — make a new one with: rexctl keygen FILE")
        }
        return pair
    }
}
