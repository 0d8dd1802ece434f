import RexAuthority

/// A statement as rexctl's `-o json` shows it: kind, serial, the key in full, the name and
/// role it states, and who signed it.
enum StatementDocument {
    static func make(_ signed: SignedStatement) -> OrderedJSON {
        let statement = signed.statement
        var document = OrderedJSON()
        switch statement.claim {
        case .member(let id, let key):
            document.append("kind", "member")
            document.append("serial", statement.serial)
            document.append("key", key.z85)
            document.append("id", id)
        case .operator(let name, let key, let role):
            document.append("kind", "operator")
            document.append("serial", statement.serial)
            document.append("key", key.z85)
            document.append("name", name)
            document.append("role", role.rawValue)
        case .revocation(let key):
            document.append("kind", "revocation")
            document.append("serial", statement.serial)
            document.append("key", key.z85)
        }
        document.append("signer", signed.signature.map { .encoding($0.signer.z85) } ?? .null)
        return document
    }

    /// One line with the key in full: `member n4 has key rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7 (serial 7)`.
    static func line(_ statement: Statement) -> String {
        switch statement.claim {
        case .member(let id, let key): return "member \(id) has key \(key.z85) (serial \(statement.serial))"
        case .operator(let name, let key, let role):
            return "operator \(name) has key \(key.z85) and role \(role.rawValue) (serial \(statement.serial))"
        case .revocation(let key): return "key \(key.z85) is revoked (serial \(statement.serial))"
        }
    }
}
