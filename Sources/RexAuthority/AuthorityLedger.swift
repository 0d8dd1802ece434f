/// The statements of the cluster authority a node holds, and the rule that decides which it
/// accepts: a state machine with no I/O (the node runtime persists it, applies its policy to the
/// ZAP handler and passes accepted statements on).
///
/// Per key, the ledger holds the accepted statement with the highest serial. A statement is
/// accepted when it decodes, is signed by the authority, and is newer than what the ledger
/// holds about its key; everything else is refused with a counted reason
/// (``AuthorityRefusal``):
///
/// - a revocation is final: once a key is revoked, nothing about it is accepted again, and a
///   revocation is accepted whatever the serial of the statement it replaces (revoking only ever
///   takes rights away, so a node that learns the admission later and one that learns it first
///   end the same: revoked);
/// - two different statements about one key with the same serial: every node keeps the one
///   whose bytes sort last, whatever the order it got them in.
///
/// So the result does not depend on the order statements arrive in: nodes that accepted the
/// same statements hold the same ledger, which is what lets gossip converge.
///
/// ```swift
/// var ledger = AuthorityLedger(authority: authorityKey)
/// switch ledger.receive(bytes) {
/// case .accepted(let change): persist, apply ledger.policy(over: initial), pass change.statement on
/// case .refused(let reason): log it (ledger.counters counted it)
/// }
/// ```
public struct AuthorityLedger: Sendable {
    /// What one statement did.
    public enum Outcome: Sendable, Hashable {
        case accepted(AuthorityChange)
        case refused(AuthorityRefusal)
    }

    /// The most keys a ledger holds by default.
    public static let defaultMaxEntries = 65_536

    /// The key every accepted statement is signed by.
    public let authority: AuthorityPublicKey
    /// The most keys held; a statement about one more is refused (``AuthorityRefusal/full(limit:)``).
    public let maxEntries: Int
    /// What was accepted and refused, by reason.
    public private(set) var counters = AuthorityCounters()
    private var entries: [CurvePublicKey: SignedStatement] = [:]

    /// An empty ledger for `authority`'s statements.
    public init(authority: AuthorityPublicKey, maxEntries: Int = defaultMaxEntries) {
        self.authority = authority
        self.maxEntries = max(0, maxEntries)
    }

    /// How many keys the ledger holds a statement about.
    public var count: Int { entries.count }

    /// The statement held about `key`.
    public func statement(about key: CurvePublicKey) -> SignedStatement? { entries[key] }

    /// Every statement held, by serial then bytes: what a node persists and offers its peers.
    public var statements: [SignedStatement] {
        entries.values.sorted { ($0.statement.serial, $0.statement.key) < ($1.statement.serial, $1.statement.key) }
    }

    /// Decodes `bytes` and receives the statement (a decoding failure is counted as malformed).
    public mutating func receive(_ bytes: [UInt8]) -> Outcome {
        do {
            return receive(try SignedStatement.decode(bytes))
        } catch {
            return refuse(.malformed(error))
        }
    }

    /// Accepts `signed` or refuses it, by the rules above.
    public mutating func receive(_ signed: SignedStatement) -> Outcome {
        let statement = signed.statement
        let held = entries[statement.key]
        // The very statement held: a replay. Checked before the signature (it was verified on
        // the way in), so gossip coming round again costs no verification. (libsodium's Ed25519
        // signatures are deterministic: the same statement signed again has the same bytes.)
        if let held, held == signed { return refuse(.replayed(serial: statement.serial)) }
        do {
            try signed.verify(by: authority)
        } catch {
            return refuse(error)
        }
        if let held {
            let heldStatement = held.statement
            if heldStatement.isRevocation { return refuse(.revokedKey(statement.key)) }
            if !statement.isRevocation {
                if statement.serial < heldStatement.serial {
                    return refuse(.stale(offered: statement.serial, held: heldStatement.serial))
                }
                if statement.serial == heldStatement.serial
                    && !heldStatement.encoded.lexicographicallyPrecedes(statement.encoded)
                {
                    return refuse(.conflicting(serial: statement.serial))
                }
            }
        } else if entries.count >= maxEntries {
            return refuse(.full(limit: maxEntries))
        }
        entries[statement.key] = signed
        counters.countAccepted()
        return .accepted(AuthorityChange(statement: signed, replaced: held?.statement))
    }

    /// The policy a node applies: `initial` (its files) with every held statement laid over it.
    public func policy(over initial: AuthorityPolicy = AuthorityPolicy()) -> AuthorityPolicy {
        var policy = initial
        for signed in entries.values { policy.apply(signed.statement) }
        return policy
    }

    /// Forgets the counts (a ledger read from its file starts counting from there).
    mutating func resetCounters() { counters = AuthorityCounters() }

    private mutating func refuse(_ refusal: AuthorityRefusal) -> Outcome {
        counters.count(refusal.reason)
        return .refused(refusal)
    }
}
