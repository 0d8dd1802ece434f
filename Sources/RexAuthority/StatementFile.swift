import Foundation

/// A signed statement on disk, as `rexctl authority sign` writes it and `rexctl authority verify`
/// (and later `rexctl admit`) reads it: a comment saying what it states, and the statement's
/// bytes in base64.
///
/// ```
/// # rexctl authority sign: member n4 has key rq:rM>}U… (serial 7), signed by key Yyj3yP)s…
/// statement = AQEAAAAAAAAAB…
/// ```
public enum StatementFile {
    /// The largest statement file read.
    public static let maxFileBytes = 4096
    private static let statementName = "statement"

    /// The file's text for `signed`.
    public static func encoded(_ signed: SignedStatement, comment: String) -> String {
        "# \(comment)\n\(statementName) = \(Data(signed.encoded).base64EncodedString())\n"
    }

    /// The statement's bytes in a file's text (decode them with ``SignedStatement/decode(_:)``,
    /// so a statement that is not one is reported as the ledger would count it).
    ///
    /// - Throws: ``AuthorityFileError``: not one `statement = BASE64` line, or not base64.
    public static func parse(_ bytes: [UInt8]) throws(AuthorityFileError) -> [UInt8] {
        guard bytes.count <= maxFileBytes else { throw AuthorityFileError("it is larger than \(maxFileBytes) bytes") }
        let lines = try AuthorityText.lines(bytes, names: [statementName], kind: "a statement file")
        guard let line = lines.first else {
            throw AuthorityFileError("it has no statement line (make one with: rexctl authority sign …)")
        }
        guard lines.count == 1 else { throw AuthorityFileError("it has \(lines.count) statement lines; a statement file has one") }
        guard let data = Data(base64Encoded: line.value) else {
            throw AuthorityFileError("its statement (line \(line.number)) is not base64")
        }
        return Array(data)
    }

    /// Reads the statement file at `path`.
    public static func read(path: String) throws(AuthorityFileError) -> [UInt8] {
        guard let contents = try DiskFile.load(path: path, maxBytes: maxFileBytes) else {
            throw AuthorityFileError("it does not exist")
        }
        return try parse(contents.bytes)
    }
}
