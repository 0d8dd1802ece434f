/// A statement and the authority's signature on it: what a node accepts, stores and passes on.
///
/// Its bytes are the statement's canonical bytes, then the signer's public key (32 bytes) and
/// the signature (64 bytes); a statement without them is unsigned (and refused by every node).
/// ``decode(_:)`` reads any bytes without trapping and refuses all but exactly that form.
///
/// ```swift
/// let signed = try SignedStatement.decode(bytes)      // StatementFormatError: not a statement
/// try signed.verify(by: authority)                    // AuthorityRefusal: unsigned, other signer, bad signature
/// ```
public struct SignedStatement: Sendable, Hashable, CustomStringConvertible {
    /// What is stated.
    public let statement: Statement
    /// nil for an unsigned statement.
    public let signature: AuthoritySignature?

    /// A statement with its signature (nil: unsigned).
    public init(_ statement: Statement, signature: AuthoritySignature?) {
        self.statement = statement
        self.signature = signature
    }

    /// The most bytes a signed statement has; longer input is refused before it is read.
    public static let maxEncodedBytes = Statement.maxEncodedBytes + signatureBytes
    private static let signatureBytes = 32 + AuthoritySignature.byteCount

    /// The statement's bytes, then the signer's key and the signature when signed.
    public var encoded: [UInt8] {
        var bytes = statement.encoded
        if let signature { bytes += signature.signer.bytes + signature.bytes }
        return bytes
    }

    /// Reads a signed (or unsigned) statement from exactly `bytes`.
    ///
    /// - Throws: ``StatementFormatError``: oversized, truncated, an unknown version, kind or
    ///   role, serial 0, a bad name, or bytes after the statement that are not one signature.
    public static func decode(_ bytes: [UInt8]) throws(StatementFormatError) -> SignedStatement {
        guard bytes.count <= maxEncodedBytes else {
            throw StatementFormatError(.oversized, "\(bytes.count) bytes is more than any statement has (\(maxEncodedBytes))")
        }
        var reader = ByteReader(bytes)
        let statement = try Statement.read(from: &reader)
        switch reader.remaining {
        case 0:
            return SignedStatement(statement, signature: nil)
        case signatureBytes:
            // Both reads take exactly what the types need, so both values build.
            let signer = AuthorityPublicKey(bytes: try reader.take(32, "signer"))!
            let signature = AuthoritySignature(signer: signer, bytes: try reader.take(AuthoritySignature.byteCount, "signature"))!
            return SignedStatement(statement, signature: signature)
        default:
            throw StatementFormatError(
                .trailingBytes, "\(reader.remaining) bytes follow the statement; a signature is \(signatureBytes) bytes")
        }
    }

    /// Checks that the authority `authority` signed exactly this statement.
    ///
    /// - Throws: ``AuthorityRefusal/unsigned``, ``AuthorityRefusal/otherSigner(_:)`` (signed,
    ///   but by another key), ``AuthorityRefusal/badSignature`` (the signature does not verify:
    ///   the statement or the signature was changed).
    public func verify(by authority: AuthorityPublicKey) throws(AuthorityRefusal) {
        guard let signature else { throw .unsigned }
        guard signature.signer == authority else { throw .otherSigner(signature.signer) }
        guard authority.verifies(signature, of: statement.signedMessage) else { throw .badSignature }
    }

    /// The statement's line, and who signed it.
    public var description: String {
        statement.description + (signature.map { ", signed by key \($0.signer.short)" } ?? ", unsigned")
    }
}
