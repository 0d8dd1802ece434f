import Foundation
import RexCluster
public import RexControl

/// What a secured node authenticates with and whom it lets in: its own CURVE key pair, the
/// cluster's members (each node's public key, from the cluster file) and the operators
/// (their keys and roles, from the operators file).
///
/// With it, every socket of the node speaks CURVE: its publisher lets in only members, its
/// subscribers expect each peer's own key (so a process on a dead node's port cannot pose as that
/// node), and its control endpoint lets in only operators, each limited to its role. Without it
/// (`NodeConfiguration.security == nil`) the node runs plain and says so at start.
public struct NodeSecurity: Sendable, Equatable {
    /// One member of the cluster.
    public struct Member: Sendable, Equatable {
        /// Its node id.
        public var id: String
        /// Its CURVE public key (Z85).
        public var key: String
        /// Its publisher endpoint, if known: a subscriber connecting there expects `key`.
        public var pub: String?

        /// A member with this key (and publisher, if known).
        public init(id: String, key: String, pub: String?) {
            self.id = id
            self.key = key
            self.pub = pub
        }
    }

    /// This node's key pair (a key file with its secret).
    public var keys: KeyFile
    /// Every node of the cluster, this one included.
    public var members: [Member]
    /// The operators' keys and roles.
    public var operators: OperatorsFile

    /// This node's keys, the cluster's members and its operators.
    public init(keys: KeyFile, members: [Member], operators: OperatorsFile) {
        self.keys = keys
        self.members = members
        self.operators = operators
    }

    /// Where a node of `clusterPath` finds its key file by default: `keys/ID.key` beside it.
    public static func defaultKeyPath(clusterPath: String, id: String) -> String {
        directory(of: clusterPath) + "/keys/\(id).key"
    }

    /// Where a node of `clusterPath` finds the operators file by default: beside it.
    public static func defaultOperatorsPath(clusterPath: String) -> String {
        directory(of: clusterPath) + "/" + OperatorsFile.defaultFileName
    }

    static func directory(of path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// The security of node `id` of `cluster` (read from `clusterPath`): nil when the cluster file
    /// carries no key for it (a plain cluster), else its key file (`keyPath`, default
    /// ``defaultKeyPath(clusterPath:id:)``) and the operators file (`operatorsPath`, default
    /// ``defaultOperatorsPath(clusterPath:)``).
    ///
    /// - Throws: `NodeError(.invalidConfiguration)` naming the file and what to do: a secret key
    ///   readable by others, a key that is not the one the cluster file has for this node, a
    ///   member without a key, no operators file.
    public static func load(
        cluster: ClusterFile, clusterPath: String, id: String, keyPath: String?, operatorsPath: String?
    ) throws(NodeError) -> NodeSecurity? {
        guard let me = cluster.nodes.first(where: { $0.id == id }) else { return nil }
        guard let myKey = me.key else {
            if let keyPath {
                throw NodeError(
                    .invalidConfiguration,
                    "--key \(keyPath): the cluster file \(clusterPath) has no \"key\" for node \(id);"
                        + " add its public key there (or run without --key)")
            }
            return nil
        }
        if let missing = cluster.nodes.first(where: { $0.key == nil }) {
            throw NodeError(
                .invalidConfiguration,
                "node \(missing.id) in the cluster file \(clusterPath) has no \"key\":"
                    + " a secured cluster needs every node's public key (or start every node with --insecure)")
        }
        let keyPath = keyPath ?? defaultKeyPath(clusterPath: clusterPath, id: id)
        let keys: KeyFile
        do {
            keys = try KeyFile.read(path: keyPath, requiringSecret: true)
        } catch {
            throw NodeError(.invalidConfiguration, "cannot use key file \(keyPath): \(error.message)")
        }
        guard keys.publicKey == myKey else {
            throw NodeError(
                .invalidConfiguration,
                "key file \(keyPath) holds public key \(CurveKeyText.short(keys.publicKey)), but the cluster file"
                    + " \(clusterPath) says node \(id) has \(CurveKeyText.short(myKey)): put this node's public key in the cluster file, or pass its own --key"
            )
        }
        let operatorsPath = operatorsPath ?? defaultOperatorsPath(clusterPath: clusterPath)
        let operators: OperatorsFile
        do {
            operators = try OperatorsFile.read(path: operatorsPath)
        } catch {
            throw NodeError(
                .invalidConfiguration,
                "cannot use operators file \(operatorsPath): \(error.message)"
                    + " — a secured node needs one to let operators in (deploy/cluster.sh writes it; see README, \"Security\")")
        }
        let members = cluster.nodes.map { Member(id: $0.id, key: $0.key ?? "", pub: $0.pub) }
        return NodeSecurity(keys: keys, members: members, operators: operators)
    }
}
