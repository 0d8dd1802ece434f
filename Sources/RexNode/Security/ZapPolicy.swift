import RexAuthority
import RexCluster
import RexControl
import ZMQ

/// Who may connect to a secured node, per socket, as of now: the one live holder its ZAP
/// handler, control service, subscribers and membership socket all read on each use, so a
/// statement the node accepts (``update(_:)``) changes the next handshake and the next request.
///
/// * `rex.control` (the control ROUTER): an operator's key, answered with its key as the
///   connection's `User-Id`, which the control service maps back to the operator's role on each
///   request (a key revoked since it connected gets `forbidden`);
/// * `rex.data` (the publisher and the membership socket): a member's key, answered with
///   `node:ID KEY`, which the membership socket checks on each message.
///
/// Anything else — another domain, another mechanism, an unknown or revoked key — is refused.
/// Owned by the node's reactor: every read and change happens on its thread.
final class ZapPolicy {
    static let controlDomain = "rex.control"
    static let dataDomain = "rex.data"
    /// How long a connection to a secured server socket may take to finish its handshake
    /// (libzmq's default is 30 s): a peer that opens connections and never completes them holds
    /// each for this long at most.
    static let handshakeInterval = Duration.seconds(5)
    /// The `User-Id` prefix of a member's connection.
    static let memberUserPrefix = "node:"

    let keyPair: ZMQCurveKeyPair
    /// Whom the files admit (serial 0).
    let initial: AuthorityPolicy
    /// The authority whose statements change ``current``; nil: it never changes.
    let authority: AuthorityPublicKey?
    /// Whom the node admits now: the files with every accepted statement laid over them.
    private(set) var current: AuthorityPolicy
    /// Publisher endpoint → the member publishing there: the cluster file's, then what the
    /// membership learns (a member admitted at run time publishes where it says).
    private var publisherIDs: [String: String]
    /// The node's security counters (one object, read into the metrics).
    let counters = SecurityCounters()

    init(_ setup: SecuritySetup, current: AuthorityPolicy? = nil) {
        keyPair = setup.keyPair
        initial = setup.initial
        authority = setup.authority
        publisherIDs = setup.publisherIDs
        self.current = current ?? setup.initial
    }

    /// Makes `socket` a CURVE server of this node under `domain` (before bind).
    func makeServer(_ socket: ZMQSocket, domain: String) throws(ZMQError) {
        try socket.makeCurveServer(keyPair, zapDomain: domain)
        try socket.setOption(.handshakeInterval, Self.handshakeInterval)
    }

    // MARK: - Deciding

    func decide(_ request: ZMQZapRequest) -> ZMQZapDecision {
        guard request.mechanism == "CURVE", let clientKey = request.clientKey, let key = CurvePublicKey(bytes: clientKey.bytes) else {
            return .deny(reason: "CURVE required")
        }
        if current.isRevoked(key) { return .deny(reason: "revoked key") }
        switch request.domain {
        case Self.controlDomain:
            return current.operator(of: key) != nil ? .allow(userID: key.z85) : .deny(reason: "unknown operator key")
        case Self.dataDomain:
            return current.memberID(of: key).map { .allow(userID: Self.memberUser($0, key)) } ?? .deny(reason: "not a cluster member")
        default:
            return .deny(reason: "unknown domain")
        }
    }

    /// The `User-Id` a member's connection carries: `node:ID KEY` (an id holds no space).
    static func memberUser(_ id: String, _ key: CurvePublicKey) -> String {
        memberUserPrefix + id + " " + key.z85
    }

    /// The role of the operator whose connection carries `userID`, as of now (nil: none any
    /// more, or never: refuse).
    func role(ofUser userID: String?) -> OperatorRole? {
        userID.flatMap(CurvePublicKey.init(z85:)).flatMap { current.operator(of: $0)?.role }
    }

    /// The operator's name for logs.
    func name(ofUser userID: String?) -> String {
        userID.flatMap(CurvePublicKey.init(z85:)).flatMap { current.operator(of: $0)?.name } ?? "unknown"
    }

    /// The member a data-plane connection's `User-Id` names, if the key it authenticated with
    /// still proves that member (nil: not a member's connection, or its key was revoked or
    /// given to another since it connected).
    func member(ofUser userID: String?) -> String? {
        guard let userID, userID.hasPrefix(Self.memberUserPrefix), let space = userID.lastIndex(of: " ") else { return nil }
        let id = String(userID[userID.index(userID.startIndex, offsetBy: Self.memberUserPrefix.count)..<space])
        guard !id.isEmpty, let key = CurvePublicKey(z85: String(userID[userID.index(after: space)...])),
            current.memberID(of: key) == id
        else { return nil }
        return id
    }

    /// The key member `id` proves now (its most recently admitted one), as libzmq takes it.
    func key(ofMember id: String) -> ZMQCurveKey? {
        current.currentKey(ofMember: id).flatMap { ZMQCurveKey(bytes: $0.bytes) }
    }

    /// The key the member publishing at `endpoint` proves now; nil when no member is known to
    /// publish there, or it has no key any more.
    func serverKey(ofPublisher endpoint: String) -> ZMQCurveKey? {
        publisherIDs[endpoint].flatMap(key(ofMember:))
    }

    /// The member known to publish at `endpoint`.
    func publisher(at endpoint: String) -> String? { publisherIDs[endpoint] }

    /// Every publisher endpoint of member `id`.
    func publisherEndpoints(of id: String) -> [String] {
        publisherIDs.filter { $0.value == id }.map(\.key).sorted()
    }

    /// The ids of every member with an admitted key: the only ids the membership takes.
    var admittedIDs: Set<String> { current.memberIDs }

    // MARK: - Changing

    /// Records that member `id` publishes at `endpoint` (learned from the membership). Bounded:
    /// at most one endpoint per member is learned, the latest.
    func learnPublisher(_ endpoint: String, of id: String) {
        guard publisherIDs[endpoint] != id else { return }
        for (known, member) in publisherIDs where member == id { publisherIDs[known] = nil }
        publisherIDs[endpoint] = id
    }

    /// Replaces whom the node admits; returns the members whose key changed (a new key, or none
    /// any more), whose connections must be made again or dropped.
    @discardableResult
    func update(_ policy: AuthorityPolicy) -> Set<String> {
        let before = current
        current = policy
        let ids = before.memberIDs.union(policy.memberIDs)
        return Set(ids.filter { before.currentKey(ofMember: $0) != policy.currentKey(ofMember: $0) })
    }
}

@available(*, unavailable) extension ZapPolicy: Sendable {}
