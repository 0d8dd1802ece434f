/// What an ``AuthorityLedger`` accepted and refused, by reason (for the node's metrics).
public struct AuthorityCounters: Sendable, Hashable, Codable {
    /// Statements accepted.
    public private(set) var accepted = 0
    /// Refused: not a statement (``AuthorityRefusal/malformed(_:)``).
    public private(set) var malformed = 0
    /// Refused: no signature.
    public private(set) var unsigned = 0
    /// Refused: signed by a key that is not the authority's.
    public private(set) var otherSigner = 0
    /// Refused: the authority's signature does not verify.
    public private(set) var badSignature = 0
    /// Refused: the very statement held already.
    public private(set) var replayed = 0
    /// Refused: not newer than the statement held about its key.
    public private(set) var stale = 0
    /// Refused: the same serial as a different statement held, which is kept.
    public private(set) var conflicting = 0
    /// Refused: about a revoked key.
    public private(set) var revokedKey = 0
    /// Refused: the ledger is full.
    public private(set) var full = 0

    /// All zero.
    public init() {}

    /// The count of one refusal reason.
    public subscript(reason: AuthorityRefusal.Reason) -> Int {
        switch reason {
        case .malformed: return malformed
        case .unsigned: return unsigned
        case .otherSigner: return otherSigner
        case .badSignature: return badSignature
        case .replayed: return replayed
        case .stale: return stale
        case .conflicting: return conflicting
        case .revokedKey: return revokedKey
        case .full: return full
        }
    }

    /// Every refusal, whatever its reason.
    public var refused: Int { AuthorityRefusal.Reason.allCases.reduce(0) { $0 &+ self[$1] } }

    mutating func countAccepted() { accepted &+= 1 }

    mutating func count(_ reason: AuthorityRefusal.Reason) {
        switch reason {
        case .malformed: malformed &+= 1
        case .unsigned: unsigned &+= 1
        case .otherSigner: otherSigner &+= 1
        case .badSignature: badSignature &+= 1
        case .replayed: replayed &+= 1
        case .stale: stale &+= 1
        case .conflicting: conflicting &+= 1
        case .revokedKey: revokedKey &+= 1
        case .full: full &+= 1
        }
    }
}
