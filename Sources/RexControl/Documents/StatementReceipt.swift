/// The result of `statement`: what the node made of a statement of the cluster authority it
/// was given (docs/protocol.md, "Statements").
///
/// `accepted: true`: the statement is new to the node, which took it (its policy changed at
/// once, it was written to the node's data directory, and the node passes it on to its peers).
/// `accepted: false`: the node held that very statement already (from its peers' gossip, or an
/// earlier request), `reason` says so, and nothing changed. Any other refusal is an error
/// reply (`statementRefused`).
///
/// ```json
/// {"accepted": true, "statement": "member n4 has key rq:rM>}U… (serial 7)", "statements": 4, "highestSerial": 7}
/// ```
public struct StatementReceipt: Codable, Sendable, Equatable {
    public var accepted: Bool
    /// Why it was not accepted (nil when it was).
    public var reason: String?
    /// The statement in one line.
    public var statement: String
    /// Keys the node holds a statement about now (its ledger's size).
    public var statements: Int
    /// The highest serial among them.
    public var highestSerial: UInt64

    public init(accepted: Bool, reason: String? = nil, statement: String, statements: Int, highestSerial: UInt64) {
        self.accepted = accepted
        self.reason = reason
        self.statement = statement
        self.statements = statements
        self.highestSerial = highestSerial
    }
}
