import Foundation

/// A node's ledger in its data directory (`authority.ledger`): the authority's key, then every
/// statement the node holds, one base64 line each.
///
/// ```
/// # rexnode: the cluster authority's statements this node holds (rewritten on each change)
/// authority = Yyj3yP)s{70u>x7-:p7gKWIu:XJ&?wH?EPIl&QOg
/// statement = AQEAAAAAAAAAB…
/// ```
///
/// Reading replays each statement through a new ``AuthorityLedger``, signature checks
/// included, so nothing in the file is trusted: a file another authority's node wrote, a changed
/// or damaged statement, or a line a ledger would not accept is an error naming the line, and
/// the node refuses to start rather than run with a ledger it cannot vouch for.
public enum AuthorityLedgerFile {
    /// The file's name in a node's data directory.
    public static let fileName = "authority.ledger"

    private static let authorityName = "authority"
    private static let statementName = "statement"
    /// A statement line: the name, " = ", base64 of the largest statement, a newline.
    private static let maxLineBytes = 16 + (SignedStatement.maxEncodedBytes + 2) / 3 * 4
    private static let headerBytes = 1024

    /// The largest file a ledger of `maxEntries` keys is read from.
    public static func maxFileBytes(maxEntries: Int) -> Int {
        headerBytes + min(max(0, maxEntries), 1 << 24) * maxLineBytes
    }

    /// The file's text for `ledger`.
    public static func encoded(_ ledger: AuthorityLedger) -> [UInt8] {
        var text = "# rexnode: the cluster authority's statements this node holds (rewritten on each change)\n"
        text += "\(authorityName) = \(ledger.authority.z85)\n"
        for signed in ledger.statements {
            text += "\(statementName) = \(Data(signed.encoded).base64EncodedString())\n"
        }
        return Array(text.utf8)
    }

    /// The ledger in a file's text, for `authority`'s statements.
    ///
    /// - Throws: ``AuthorityFileError`` naming what is wrong: no or another authority, a line
    ///   that is not base64, a statement the ledger refuses (bad signature, a duplicate, …).
    public static func decode(
        _ bytes: [UInt8], authority: AuthorityPublicKey, maxEntries: Int = AuthorityLedger.defaultMaxEntries
    ) throws(AuthorityFileError) -> AuthorityLedger {
        guard bytes.count <= maxFileBytes(maxEntries: maxEntries) else {
            throw AuthorityFileError("it is larger than \(maxFileBytes(maxEntries: maxEntries)) bytes")
        }
        let lines = try AuthorityText.lines(bytes, names: [authorityName, statementName], kind: "a ledger file")
        guard let first = lines.first, first.name == authorityName else {
            throw AuthorityFileError("it does not start with an \(authorityName) line: it is damaged")
        }
        guard let held = AuthorityPublicKey(z85: first.value) else {
            throw AuthorityFileError("its \(authorityName) (line \(first.number)) is not 40 Z85 characters: it is damaged")
        }
        guard held == authority else {
            throw AuthorityFileError(
                "it holds the statements of authority \(held.short), but this node's authority is \(authority.short):"
                    + " move it away to start with an empty ledger, or give the node the authority it was kept for")
        }
        var ledger = AuthorityLedger(authority: authority, maxEntries: maxEntries)
        for line in lines.dropFirst() {
            guard line.name == statementName else { throw AuthorityFileError("line \(line.number) is a second \(authorityName) line") }
            guard let data = Data(base64Encoded: line.value) else {
                throw AuthorityFileError("line \(line.number) is not base64: the file is damaged")
            }
            if case .refused(let refusal) = ledger.receive(Array(data)) {
                throw AuthorityFileError("the statement on line \(line.number) is refused (\(refusal)): the file is damaged or was changed")
            }
        }
        ledger.resetCounters()
        return ledger
    }

    /// The ledger kept in `directory`, or an empty one when there is none yet.
    public static func load(
        directory: String, authority: AuthorityPublicKey, maxEntries: Int = AuthorityLedger.defaultMaxEntries
    ) throws(AuthorityFileError) -> AuthorityLedger {
        guard let contents = try DiskFile.load(path: path(in: directory), maxBytes: maxFileBytes(maxEntries: maxEntries)) else {
            return AuthorityLedger(authority: authority, maxEntries: maxEntries)
        }
        return try decode(contents.bytes, authority: authority, maxEntries: maxEntries)
    }

    /// Writes `ledger` to `directory` atomically: a crash leaves the previous file or this one.
    public static func save(_ ledger: AuthorityLedger, directory: String) throws(AuthorityFileError) {
        try DiskFile.replace(path: path(in: directory), with: encoded(ledger), mode: 0o600)
    }

    /// The file's path in `directory`.
    public static func path(in directory: String) -> String {
        (directory.hasSuffix("/") ? directory : directory + "/") + fileName
    }
}
