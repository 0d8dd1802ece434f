import Foundation
public import RexAuthority
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
    /// The cluster authority's public key (`authority.pub`): the node accepts the statements it
    /// signs, which admit and revoke member and operator keys while the node runs. Nil: the
    /// node admits its files' keys only, for its whole run.
    public var authority: AuthorityPublicKey?

    /// This node's keys, the cluster's members and its operators, and the cluster authority
    /// whose statements change who is admitted while the node runs (nil: none).
    public init(keys: KeyFile, members: [Member], operators: OperatorsFile, authority: AuthorityPublicKey? = nil) {
        self.keys = keys
        self.members = members
        self.operators = operators
        self.authority = authority
    }

    /// Where a node of `clusterPath` finds its key file by default: `keys/ID.key` beside it.
    public static func defaultKeyPath(clusterPath: String, id: String) -> String {
        directory(of: clusterPath) + "/keys/\(id).key"
    }

    /// Where a node of `clusterPath` finds the operators file by default: beside it.
    public static func defaultOperatorsPath(clusterPath: String) -> String {
        directory(of: clusterPath) + "/" + OperatorsFile.defaultFileName
    }

    /// Where a node of `clusterPath` finds the cluster authority's public key by default:
    /// `authority.pub` beside it (used when it exists).
    public static func defaultAuthorityPath(clusterPath: String) -> String {
        directory(of: clusterPath) + "/" + AuthorityKeyFile.publicFileName
    }

    static func directory(of path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// The security of node `id` of `cluster` (read from `clusterPath`): nil when the cluster file
    /// carries no key for it (a plain cluster), else its key file (`keyPath`, default
    /// ``defaultKeyPath(clusterPath:id:)``), the operators file (`operatorsPath`, default
    /// ``defaultOperatorsPath(clusterPath:)``) and the authority's public key (`authorityPath`,
    /// default ``defaultAuthorityPath(clusterPath:)`` when that file exists).
    ///
    /// - Throws: `NodeError(.invalidConfiguration)` naming the file and what to do: a secret key
    ///   readable by others, a key that is not the one the cluster file has for this node, a
    ///   member without a key, no operators file, an authority file that cannot be read or that
    ///   holds the authority's signing key.
    public static func load(
        cluster: ClusterFile, clusterPath: String, id: String, keyPath: String?, operatorsPath: String?,
        authorityPath: String? = nil
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
        let authority = try loadAuthority(path: authorityPath, clusterPath: clusterPath)
        return NodeSecurity(keys: keys, members: members, operators: operators, authority: authority)
    }

    /// The authority's public key from `path`, or from ``defaultAuthorityPath(clusterPath:)``
    /// when that file exists (nil when it does not). A file holding the signing key is refused:
    /// a node needs `authority.pub` only, and the signing key belongs offline.
    static func loadAuthority(path: String?, clusterPath: String) throws(NodeError) -> AuthorityPublicKey? {
        let chosen = path ?? defaultAuthorityPath(clusterPath: clusterPath)
        if path == nil && !FileManager.default.fileExists(atPath: chosen) { return nil }
        let file: AuthorityKeyFile
        do {
            file = try AuthorityKeyFile.read(path: chosen, requiringSecret: false)
        } catch {
            throw NodeError(.invalidConfiguration, "cannot use the authority key file \(chosen): \(error.message)")
        }
        guard file.signingKey == nil else {
            throw NodeError(
                .invalidConfiguration,
                "the authority key file \(chosen) holds the authority's signing key: give a node \(AuthorityKeyFile.publicFileName)"
                    + " only, and keep \(AuthorityKeyFile.secretFileName) offline")
        }
        return file.publicKey
    }
}
