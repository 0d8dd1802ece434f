import Foundation

/// A node rexctl can talk to: its id and its control endpoint (and PUB endpoint, if known).
struct NodeAddress: Sendable, Equatable {
    var id: String
    var control: String
    var pub: String?
}

/// The cluster file that deploy scripts write and rexctl reads.
///
/// ```json
/// {"nodes": [{"id": "n1", "pub": "tcp://127.0.0.1:7101", "control": "tcp://127.0.0.1:7201"},
///            {"id": "n2", "pub": "tcp://127.0.0.1:7102", "control": "tcp://127.0.0.1:7202"}]}
/// ```
///
/// `id` and `control` are required; `pub` is optional; other members are ignored. Ids are unique.
struct ClusterFile: Sendable, Equatable {
    /// Where rexctl looks when `--cluster` and `$REXCTL_CLUSTER` are not given.
    static let defaultRelativePath = ".deploy/cluster.json"
    /// The environment variable naming a cluster file.
    static let environmentVariable = "REXCTL_CLUSTER"

    var nodes: [NodeAddress]

    /// Parses the file's JSON text.
    ///
    /// - Throws: a message (without the path) saying what is wrong.
    static func parse(_ text: String) throws(ClusterFileError) -> ClusterFile {
        let document: JSONValue
        do {
            document = try JSONValue.parse(text)
        } catch {
            throw ClusterFileError("it is not valid JSON (\(error))")
        }
        guard let entries = document["nodes"]?.elements else {
            throw ClusterFileError(#"it has no "nodes" array"#)
        }
        var nodes: [NodeAddress] = []
        for (index, entry) in entries.enumerated() {
            guard let id = entry["id"]?.stringValue, !id.isEmpty else {
                throw ClusterFileError(#"nodes[\#(index)] has no "id" string"#)
            }
            guard let control = entry["control"]?.stringValue, !control.isEmpty else {
                throw ClusterFileError(#"node \#(id) has no "control" endpoint"#)
            }
            if nodes.contains(where: { $0.id == id }) {
                throw ClusterFileError("node id \(id) appears twice")
            }
            nodes.append(NodeAddress(id: id, control: control, pub: entry["pub"]?.stringValue))
        }
        return ClusterFile(nodes: nodes)
    }

    /// Reads and parses the file at `path`.
    static func load(path: String) throws(ClusterFileError) -> ClusterFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ClusterFileError("it does not exist or cannot be read")
        }
        return try parse(String(decoding: data, as: UTF8.self))
    }
}

/// Why a cluster file cannot be used.
struct ClusterFileError: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}
