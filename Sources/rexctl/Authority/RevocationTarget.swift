import Foundation
import RexAuthority
import RexControl

/// `sign revoke ID`: the key of node or operator ID, from the cluster file and the operators
/// file beside it (the files nodes start from).
enum RevocationTarget {
    static func key(of id: String, _ context: CommandContext) throws -> CurvePublicKey {
        guard Statement.isValidName(id) else {
            throw UsageError("'\(id.prefix(64))' is neither a key (40 Z85 characters) nor a node or operator id")
        }
        let (nodes, source) = try context.clusterNodes()
        var found: [(what: String, key: String?)] = []
        if let node = nodes.first(where: { $0.id == id }) { found.append(("node \(id) in \(source)", node.key)) }
        if let path = operatorsPath(source), let operators = try? OperatorsFile.read(path: path),
            let entry = operators.operators.first(where: { $0.name == id })
        {
            found.append(("operator \(id) in \(path)", entry.key))
        }
        guard let (what, text) = found.first else {
            throw UsageError(
                "no node or operator '\(id)' in \(source) or the operators file beside it — pass the key itself (40 Z85 characters)")
        }
        guard found.count == 1 else {
            throw UsageError("'\(id)' is both \(found.map(\.what).joined(separator: " and ")) — pass the key itself (40 Z85 characters)")
        }
        guard let text else { throw UsageError("\(what) has no key (a plain cluster): there is nothing to revoke") }
        guard let key = CurvePublicKey(z85: text) else {
            throw UsageError("\(what) has a key that is not canonical Z85 — pass the key itself")
        }
        return key
    }

    /// The key operator `name` has in operators.json beside the cluster file.
    static func operatorKey(named name: String, _ context: CommandContext) throws -> CurvePublicKey {
        guard Statement.isValidName(name) else {
            throw UsageError("'\(name.prefix(64))' is neither a key (40 Z85 characters) nor an operator's name")
        }
        let (_, source) = try context.clusterNodes()
        guard let path = operatorsPath(source) else {
            throw UsageError("with --node alone there is no operators file to find '\(name)' in: pass --key FILE or the key itself")
        }
        let operators: OperatorsFile
        do {
            operators = try OperatorsFile.read(path: path)
        } catch {
            throw CommandFailure(.failure, "cannot use operators file \(path): \(error.message) — pass --key FILE or the key itself")
        }
        guard let entry = operators.operators.first(where: { $0.name == name }) else {
            throw UsageError("no operator '\(name)' in \(path) — pass --key FILE (an operator added at run time) or the key itself")
        }
        guard let key = CurvePublicKey(z85: entry.key) else {
            throw UsageError("operator \(name) in \(path) has a key that is not canonical Z85 — pass the key itself")
        }
        return key
    }

    /// operators.json beside the cluster file `source` (nil: the nodes came from --node alone).
    private static func operatorsPath(_ source: String) -> String? {
        guard source != "--node" else { return nil }
        let folder = (source as NSString).deletingLastPathComponent
        return (folder.isEmpty ? "." : folder) + "/" + OperatorsFile.defaultFileName
    }
}
