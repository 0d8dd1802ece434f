import Foundation
import RexAuthority
import RexCluster
import RexControl

extension ControlService {
    /// The answer to a `statement` request: the statement (base64) given to the node's
    /// authority. Any operator may send one: the authority's signature is what authorizes it.
    ///
    /// - Throws: `statementRefused` with the reason (not base64, not a statement, not signed by
    ///   the authority, stale, about a revoked key, no authority on this node), each counted.
    static func receipt(_ text: String, _ authority: NodeAuthority?, node: String) throws(ControlError) -> StatementReceipt {
        guard let authority else {
            throw ControlError(
                .statementRefused,
                "node \(node) has no cluster authority: start it secured with the authority's public key"
                    + " (rexnode --authority FILE, or authority.pub beside the cluster file)")
        }
        guard let outcome = authority.receive(base64: text, from: "an operator") else {
            throw ControlError(.statementRefused, "'statement' is not base64 (give a statement file's line)")
        }
        switch outcome {
        case .accepted(let change):
            return StatementReceipt(
                accepted: true, statement: change.statement.statement.description, statements: authority.ledger.count,
                highestSerial: authority.highestSerial)
        case .refused(.replayed(let serial)):
            // The very statement held (gossip got here first, or a retry): nothing to do.
            let bytes = Data(base64Encoded: text).map { Array($0) } ?? []
            let held = (try? SignedStatement.decode(bytes))?.statement.description ?? "serial \(serial)"
            return StatementReceipt(
                accepted: false, reason: "already held", statement: held, statements: authority.ledger.count,
                highestSerial: authority.highestSerial)
        case .refused(let refusal):
            throw ControlError(.statementRefused, "refused: \(refusal)")
        case .notPersisted(let reason):
            throw ControlError(.statementRefused, "not taken: node \(node) could not write it to its data directory (\(reason))")
        }
    }
}
