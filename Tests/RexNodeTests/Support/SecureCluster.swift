import Foundation
import NodeTestSupport
import RexAuthority
import RexCluster
import RexControl
import RexFeeds
import RexNode
import SharedTestSupport
import ZMQ

/// Keys and endpoints of a secured test cluster: one key pair per node and per operator, ipc
/// publisher and membership endpoints known before any node starts (so every member's entry names its key and
/// endpoint), control endpoints on free loopback ports.
struct SecureCluster {
    var nodeKeys: [String: ZMQCurveKeyPair] = [:]
    var operatorKeys: [String: ZMQCurveKeyPair] = [:]
    var pubs: [String: String] = [:]
    var memberships: [String: String] = [:]
    var roles: [String: OperatorRole] = [:]
    /// The cluster authority every node is given (nil: none, the files' keys only).
    var authority: AuthoritySigningKey?
    let tag = UInt32.random(in: 0...UInt32.max)

    init(nodes: [String], operators: [String: OperatorRole] = ["admin": .admin, "viewer": .viewer]) throws {
        for id in nodes {
            nodeKeys[id] = try ZMQCurveKeyPair.generate()
            pubs[id] = IPCTestEndpoint.make("rexsec-\(getpid())-\(tag)-\(id).pub")
            memberships[id] = IPCTestEndpoint.make("rexsec-\(getpid())-\(tag)-\(id).mem")
        }
        for (name, role) in operators {
            operatorKeys[name] = try ZMQCurveKeyPair.generate()
            roles[name] = role
        }
    }

    var members: [NodeSecurity.Member] {
        pubs.keys.sorted().map { NodeSecurity.Member(id: $0, key: nodeKeys[$0]!.publicKey.z85, pub: pubs[$0]) }
    }

    var operators: OperatorsFile {
        OperatorsFile(
            operators: roles.keys.sorted().map { OperatorsFile.Operator(name: $0, key: operatorKeys[$0]!.publicKey.z85, role: roles[$0]!) })
    }

    func security(for id: String, keys: ZMQCurveKeyPair? = nil, members: [String]? = nil) -> NodeSecurity {
        let pair = keys ?? nodeKeys[id]!
        return NodeSecurity(
            keys: KeyFile(publicKey: pair.publicKey.z85, secretKey: pair.secretKey.z85),
            members: self.members.filter { members?.contains($0.id) ?? true }, operators: operators,
            authority: authority?.publicKey)
    }

    /// Starts node `id` secured (with `keys` instead of its own to play an impostor), its peers
    /// every other member (or those of `members` when given: the members its files know), with
    /// its state in `dataDirectory` if given.
    func start(
        _ id: String, keys: ZMQCurveKeyPair? = nil, logger: NodeLogger? = nil, members: [String]? = nil,
        dataDirectory: String? = nil
    ) throws -> Node {
        var configuration = NodeConfiguration(
            id: id, pubEndpoint: pubs[id]!, controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: memberships[id]!,
            settings: NodeSettings(feedIntervalMs: 20, followSettleMs: 10), logLevel: .error)
        for (other, pub) in pubs where other != id && members?.contains(other) ?? true {
            configuration.addPeer(other, pub: pub, membership: memberships[other]!)
        }
        configuration.security = security(for: id, keys: keys, members: members)
        configuration.durable = dataDirectory.map { DurableOptions(directory: $0) }
        return try Node.start(configuration, logger: logger)
    }
}

/// One control request over CURVE as `client` to a node holding `serverKey`; nil: no reply.
func secureControlRequest(
    _ endpoint: String, serverKey: ZMQCurveKey, client: ZMQCurveKeyPair?, _ payload: String, timeout: Duration = .seconds(2)
) async throws -> [String: Any]? {
    let reply = try await offPool { () throws -> [UInt8]? in
        let context = try ZMQContext()
        let socket = try context.socket(.dealer)
        defer {
            socket.close()
            try? context.terminate()
        }
        try socket.setOption(.receiveTimeout, timeout)
        if let client { try socket.makeCurveClient(client, serverKey: serverKey) }
        try socket.connect(endpoint)
        _ = try socket.send(payload)
        guard let frames = try? socket.receiveMultipart(), let last = frames.last else { return nil }
        return last
    }
    guard let reply else { return nil }
    return try JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any]
}
