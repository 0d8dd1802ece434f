import Foundation

/// The operators a secured node accepts on its control endpoint: each one's CURVE public key
/// and role (like ssh's `authorized_keys`).
///
/// ```json
/// {"operators": [{"name": "alice", "key": "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7", "role": "admin"},
///                {"name": "grafana", "key": "Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID", "role": "viewer"}]}
/// ```
///
/// `name` (1–64 letters, digits, `-`, `_`, `.`, `@`), `key` (Z85) and `role` (`admin` or
/// `viewer`) are required; keys and names are unique; other members are ignored.
public struct OperatorsFile: Sendable, Equatable {
    public struct Operator: Sendable, Equatable {
        public var name: String
        /// The operator's public key (Z85).
        public var key: String
        public var role: OperatorRole

        public init(name: String, key: String, role: OperatorRole) {
            self.name = name
            self.key = key
            self.role = role
        }
    }

    public var operators: [Operator]

    public init(operators: [Operator]) { self.operators = operators }

    /// The largest operators file read.
    public static let maxFileBytes = 1 << 20
    /// The most operators one file lists.
    public static let maxOperators = 4096
    /// The file rexnode reads next to its cluster file when `--operators` is not given.
    public static let defaultFileName = "operators.json"

    /// The operator with this public key.
    public func `operator`(withKey key: String) -> Operator? {
        operators.first { $0.key == key }
    }

    /// Parses the file's JSON text.
    public static func parse(_ bytes: [UInt8]) throws(SecurityFileError) -> OperatorsFile {
        guard bytes.count <= maxFileBytes else { throw SecurityFileError("it is larger than \(maxFileBytes) bytes") }
        let document: Lenient
        do {
            document = try ControlCodec.decode(Lenient.self, from: bytes)
        } catch {
            throw SecurityFileError("it is not valid JSON (\(decodingSummary(error)))")
        }
        guard let entries = document.operators else { throw SecurityFileError(#"it has no "operators" array"#) }
        guard entries.count <= maxOperators else { throw SecurityFileError("it lists \(entries.count) operators; at most \(maxOperators)") }
        var operators: [Operator] = []
        for (index, entry) in entries.enumerated() {
            guard let name = entry.name, isName(name) else {
                throw SecurityFileError(#"operators[\#(index)] has no "name" of 1 to 64 letters, digits, '-', '_', '.' or '@'"#)
            }
            guard let key = entry.key, CurveKeyText.isValid(key) else {
                throw SecurityFileError(#"operator \#(name) has no "key" of 40 Z85 characters (make one with: rexctl keygen FILE)"#)
            }
            guard let roleName = entry.role, let role = OperatorRole(rawValue: roleName) else {
                throw SecurityFileError(#"operator \#(name) has no "role" (admin or viewer)"#)
            }
            guard !operators.contains(where: { $0.name == name }) else { throw SecurityFileError("operator \(name) appears twice") }
            if let other = operators.first(where: { $0.key == key }) {
                throw SecurityFileError("operators \(other.name) and \(name) have the same key")
            }
            operators.append(Operator(name: name, key: key, role: role))
        }
        return OperatorsFile(operators: operators)
    }

    /// Reads and parses the file at `path`.
    public static func read(path: String) throws(SecurityFileError) -> OperatorsFile {
        try parse(try BoundedFile.read(path: path, maxBytes: maxFileBytes))
    }

    /// The file's JSON text, one operator a line.
    public func encoded() -> String {
        let lines = operators.map { entry in
            #"  {"name": "\#(entry.name)", "key": "\#(entry.key)", "role": "\#(entry.role.rawValue)"}"#
        }
        return "{\"operators\": [\n" + lines.joined(separator: ",\n") + "\n]}\n"
    }

    static func isName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.@".unicodeScalars.contains($0))
            }
    }

    private struct Lenient: Decodable {
        struct Entry: Decodable {
            let name: String?
            let key: String?
            let role: String?

            enum Key: String, CodingKey { case name, key, role }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Key.self)
                name = try? container.decodeIfPresent(String.self, forKey: .name)
                key = try? container.decodeIfPresent(String.self, forKey: .key)
                role = try? container.decodeIfPresent(String.self, forKey: .role)
            }
        }

        let operators: [Entry]?

        enum Key: String, CodingKey { case operators }

        init(from decoder: any Decoder) throws {
            operators = try? decoder.container(keyedBy: Key.self).decodeIfPresent([Entry].self, forKey: .operators)
        }
    }
}
