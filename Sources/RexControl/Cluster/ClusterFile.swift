import Foundation

/// The nodes of a cluster, as `deploy/` writes them, `rexnode --cluster` starts from and
/// `rexctl` addresses.
///
/// ```json
/// {"nodes": [{"id": "n1", "pub": "tcp://127.0.0.1:7101", "control": "tcp://127.0.0.1:7201"},
///            {"id": "n2", "pub": "tcp://127.0.0.1:7102", "control": "tcp://127.0.0.1:7202"}]}
/// ```
///
/// `id` and `control` are required and non-empty, ids are unique; `pub` is optional (a node
/// needs it to start from the file); `metrics` is optional (a node started from the file serves
/// HTTP metrics there); `key` is optional (the node's CURVE public key: with it the node runs
/// secured, and rexctl and peers expect that key); `membership` is the node's SWIM membership
/// endpoint, where the others probe it (optional for rexctl; a node needs every node's to start
/// from the file: they are its first members); other members are ignored.
public struct ClusterFile: Codable, Sendable, Equatable {
    /// One node: its id, its publisher (optional for rexctl) and its control endpoint.
    public struct Entry: Codable, Sendable, Equatable {
        public var id: String
        public var pub: String?
        public var control: String
        /// The node's HTTP metrics endpoint (`rexnode --metrics`). Optional, so files written
        /// before it still load.
        public var metrics: String?
        /// The node's CURVE public key (Z85). Optional, so files written before nodes had keys
        /// still load; a node whose entry has one runs secured (see README, "Security").
        public var key: String?
        /// The node's membership endpoint (`rexnode --membership`), where the others probe it.
        /// Optional, so files written before it still load for rexctl.
        public var membership: String?

        public init(id: String, pub: String?, control: String, metrics: String? = nil, key: String? = nil, membership: String? = nil) {
            self.membership = membership
            self.id = id
            self.pub = pub
            self.control = control
            self.metrics = metrics
            self.key = key
        }
    }

    public var nodes: [Entry]

    public init(nodes: [Entry]) { self.nodes = nodes }

    /// Where rexctl looks when neither `--cluster` nor ``environmentVariable`` names a file.
    public static let defaultRelativePath = ".deploy/cluster.json"
    /// The environment variable naming a cluster file for rexctl.
    public static let environmentVariable = "REXCTL_CLUSTER"
    /// The largest cluster file read (a few hundred bytes per node).
    public static let maxFileBytes = 4 << 20

    /// Reads a cluster file's JSON text.
    ///
    /// - Throws: ``ClusterFileError`` saying what is wrong (without the path).
    public static func parse(_ bytes: [UInt8]) throws(ClusterFileError) -> ClusterFile {
        let document: Lenient
        do {
            document = try ControlCodec.decode(Lenient.self, from: bytes)
        } catch {
            throw ClusterFileError("it is not valid JSON (\(decodingSummary(error)))")
        }
        guard let entries = document.nodes else { throw ClusterFileError(#"it has no "nodes" array"#) }
        var nodes: [Entry] = []
        for (index, entry) in entries.enumerated() {
            guard let id = entry.id, !id.isEmpty else { throw ClusterFileError(#"nodes[\#(index)] has no "id" string"#) }
            guard let control = entry.control, !control.isEmpty else {
                throw ClusterFileError(#"node \#(id) has no "control" endpoint"#)
            }
            guard !nodes.contains(where: { $0.id == id }) else { throw ClusterFileError("node id \(id) appears twice") }
            if let key = entry.key {
                guard CurveKeyText.isValid(key) else { throw ClusterFileError(#"node \#(id) has a "key" that is not 40 Z85 characters"#) }
                if let other = nodes.first(where: { $0.key == key }) {
                    throw ClusterFileError("nodes \(other.id) and \(id) have the same key")
                }
            } else if entry.hasKeyMember {
                throw ClusterFileError(#"node \#(id) has a "key" that is not a string"#)
            }
            nodes.append(
                Entry(
                    id: id, pub: entry.pub, control: control, metrics: entry.metrics.flatMap { $0.isEmpty ? nil : $0 },
                    key: entry.key, membership: entry.membership.flatMap { $0.isEmpty ? nil : $0 }))
        }
        return ClusterFile(nodes: nodes)
    }

    /// Reads and parses the file at `path` (at most ``maxFileBytes``).
    public static func read(path: String) throws(ClusterFileError) -> ClusterFile {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ClusterFileError("it does not exist or cannot be read")
        }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maxFileBytes + 1) else {
            throw ClusterFileError("it does not exist or cannot be read")
        }
        guard data.count <= maxFileBytes else { throw ClusterFileError("it is larger than \(maxFileBytes) bytes") }
        return try parse(Array(data))
    }

    /// The file as written, each member optional, so that what is missing can be named.
    private struct Lenient: Decodable {
        struct Node: Decodable {
            let id: String?
            let pub: String?
            let control: String?
            let metrics: String?
            let key: String?
            let membership: String?
            /// Whether a "key" member is there at all (a non-string one is an error, not "no key").
            let hasKeyMember: Bool

            enum Key: String, CodingKey { case id, pub, control, metrics, key, membership }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Key.self)
                id = try? container.decodeIfPresent(String.self, forKey: .id)
                pub = try? container.decodeIfPresent(String.self, forKey: .pub)
                control = try? container.decodeIfPresent(String.self, forKey: .control)
                metrics = try? container.decodeIfPresent(String.self, forKey: .metrics)
                key = try? container.decodeIfPresent(String.self, forKey: .key)
                membership = try? container.decodeIfPresent(String.self, forKey: .membership)
                hasKeyMember = container.contains(.key) && (try? container.decodeNil(forKey: .key)) != true
            }
        }

        let nodes: [Node]?

        enum Key: String, CodingKey { case nodes }

        init(from decoder: any Decoder) throws {
            nodes = try? decoder.container(keyedBy: Key.self).decodeIfPresent([Node].self, forKey: .nodes)
        }
    }
}

/// Why a cluster file cannot be used.
public struct ClusterFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
