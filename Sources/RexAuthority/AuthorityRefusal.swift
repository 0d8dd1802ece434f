/// Why a node refused a statement: each reason counted by ``AuthorityLedger/Counters``.
public enum AuthorityRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not a statement.
    case malformed(StatementFormatError)
    /// The statement carries no signature.
    case unsigned
    /// Signed by this key, which is not the authority's (a member or an operator signing its own
    /// statements, or another cluster's authority).
    case otherSigner(AuthorityPublicKey)
    /// The authority's signature does not verify: the statement or the signature was changed.
    case badSignature
    /// The node holds this very statement already (a replay, or gossip coming round again).
    case replayed(serial: UInt64)
    /// The node holds a statement about the same key with a serial at least this high.
    case stale(offered: UInt64, held: UInt64)
    /// The node holds another statement about the same key with the same serial, and keeps it
    /// (of two, every node keeps the one whose bytes sort last, so all keep the same).
    case conflicting(serial: UInt64)
    /// The key is revoked: nothing about it is accepted again.
    case revokedKey(CurvePublicKey)
    /// The ledger holds as many keys as it may (``AuthorityLedger/maxEntries``).
    case full(limit: Int)

    /// The reason's name, as counters and logs show it.
    public var reason: Reason {
        switch self {
        case .malformed: return .malformed
        case .unsigned: return .unsigned
        case .otherSigner: return .otherSigner
        case .badSignature: return .badSignature
        case .replayed: return .replayed
        case .stale: return .stale
        case .conflicting: return .conflicting
        case .revokedKey: return .revokedKey
        case .full: return .full
        }
    }

    /// A refusal's reason without its details.
    public enum Reason: String, Sendable, Hashable, CaseIterable, Codable {
        case malformed, unsigned, otherSigner, badSignature, replayed, stale, conflicting, revokedKey, full
    }

    public var description: String {
        switch self {
        case .malformed(let error): return "not a statement: \(error.message)"
        case .unsigned: return "the statement is not signed"
        case .otherSigner(let key): return "signed by key \(key.short), which is not the cluster authority"
        case .badSignature: return "the authority's signature does not verify (the statement or its signature was changed)"
        case .replayed(let serial): return "already held (serial \(serial)): a replay"
        case .stale(let offered, let held): return "stale: serial \(offered) is not newer than the held serial \(held) for this key"
        case .conflicting(let serial):
            return "another statement about this key has the same serial \(serial); the held one is kept"
        case .revokedKey(let key): return "key \(key.short) is revoked"
        case .full(let limit): return "the ledger holds \(limit) keys, its limit"
        }
    }
}
