/// A statement a ledger accepted, and the one about the same key it replaced (nil: the key was
/// new to the ledger): enough for the runtime to act (drop a revoked key's connections, log a
/// role change) and to pass the statement on.
public struct AuthorityChange: Sendable, Hashable {
    /// The accepted statement, with its signature (what to persist and gossip).
    public let statement: SignedStatement
    /// What the ledger held about the key before.
    public let replaced: Statement?
}
