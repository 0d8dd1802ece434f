import RexAuthority

/// `rexctl authority verify FILE`: whether the authority signed the statement in FILE, checked
/// as a node checks it.
enum AuthorityVerify {
    /// Checks the statement file at `path`, shown as `file` (as the command line gave it).
    static func run(file: String, path: String, authority: AuthorityPublicKey, context: CommandContext) throws -> ExitCode {
        let bytes: [UInt8]
        do {
            bytes = try StatementFile.read(path: path)
        } catch {
            throw CommandFailure(.failure, "cannot use the statement file \(file): \(error.message)")
        }
        let signed: SignedStatement
        do {
            signed = try SignedStatement.decode(bytes)
        } catch {
            throw CommandFailure(.failure, "\(file) is refused: \(AuthorityRefusal.malformed(error))")
        }
        do {
            try signed.verify(by: authority)
        } catch {
            throw CommandFailure(.failure, "\(file) is refused: \(error) (it says: \(StatementDocument.line(signed.statement)))")
        }
        switch context.globals.output {
        case .json:
            var document: OrderedJSON = ["file": .encoding(file), "valid": .encoding(true)]
            document.append("statement", StatementDocument.make(signed))
            context.printJSON(document)
        case .table:
            context.stdout.line("\(file): \(StatementDocument.line(signed.statement)), signed by the authority (key \(authority.short))")
        }
        return .success
    }
}
