public import RexControl

/// Whom a secured node lets in, by key: its members (each key → the member id it proves) and
/// its operators (each key → name and role), and the keys revoked for good — what its ZAP
/// handler decides handshakes from.
///
/// A node starts from its cluster and operators files (``init(members:operators:)``, serial 0)
/// and ``AuthorityLedger/policy(over:)`` lays the statements it accepted over that: the latest
/// statement about a key says what the key is (a member, an operator, or revoked), whatever
/// the files said.
public struct AuthorityPolicy: Sendable, Equatable {
    /// A member key: the member it proves and the serial of the statement that admitted it.
    public struct Member: Sendable, Hashable {
        /// The member the key proves.
        public var id: String
        /// 0 for a key from the node's cluster file.
        public var serial: UInt64

        public init(id: String, serial: UInt64) {
            self.id = id
            self.serial = serial
        }
    }

    /// An operator key: the operator's name and role, and the serial that admitted it.
    public struct Operator: Sendable, Hashable {
        /// The operator's name (for logs).
        public var name: String
        /// What the operator may do.
        public var role: OperatorRole
        /// 0 for a key from the node's operators file.
        public var serial: UInt64

        public init(name: String, role: OperatorRole, serial: UInt64) {
            self.name = name
            self.role = role
            self.serial = serial
        }
    }

    /// Admitted member keys.
    public private(set) var members: [CurvePublicKey: Member] = [:]
    /// Admitted operator keys.
    public private(set) var operators: [CurvePublicKey: Operator] = [:]
    /// Revoked keys: neither a member's nor an operator's, whatever any file says.
    public private(set) var revoked: Set<CurvePublicKey> = []

    /// No one.
    public init() {}

    /// What a node's files give it (serial 0): member keys → ids, operator keys → names and
    /// roles. A key may be both a member's and an operator's here (the two sockets are apart).
    public init(members: [CurvePublicKey: String], operators: [CurvePublicKey: (name: String, role: OperatorRole)]) {
        self.members = members.mapValues { Member(id: $0, serial: 0) }
        self.operators = operators.mapValues { Operator(name: $0.name, role: $0.role, serial: 0) }
    }

    /// The member `key` proves, if it is an admitted member key.
    public func memberID(of key: CurvePublicKey) -> String? { members[key]?.id }

    /// The operator `key` belongs to, if it is an admitted operator key.
    public func `operator`(of key: CurvePublicKey) -> Operator? { operators[key] }

    /// Whether `key` is revoked.
    public func isRevoked(_ key: CurvePublicKey) -> Bool { revoked.contains(key) }

    /// The ids of every member with at least one admitted key.
    public var memberIDs: Set<String> { Set(members.values.map(\.id)) }

    /// Every admitted key of member `id`, the most recently admitted (highest serial) first; more
    /// than one while the member rotates its key.
    public func keys(ofMember id: String) -> [CurvePublicKey] {
        members.filter { $0.value.id == id }
            .sorted { ($0.value.serial, $1.key) > ($1.value.serial, $0.key) }
            .map(\.key)
    }

    /// The key member `id` publishes with: its most recently admitted one (what a subscriber
    /// connecting to it expects).
    public func currentKey(ofMember id: String) -> CurvePublicKey? { keys(ofMember: id).first }

    /// Applies one accepted statement: its key becomes what it says, and only that.
    mutating func apply(_ statement: Statement) {
        let key = statement.key
        members[key] = nil
        operators[key] = nil
        switch statement.claim {
        case .member(let id, _): members[key] = Member(id: id, serial: statement.serial)
        case .operator(let name, _, let role): operators[key] = Operator(name: name, role: role, serial: statement.serial)
        case .revocation: revoked.insert(key)
        }
    }

}
