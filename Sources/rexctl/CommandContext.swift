import Foundation
import RexControl
import ZMQ

/// What a running command needs: options, output streams, the process environment, and the
/// node connections (created on first use, closed by ``close()``).
final class CommandContext {
    let globals: GlobalOptions
    let stdout: any TextOutput
    let stderr: any TextOutput
    let environment: RexCtlEnvironment
    /// Colour for stdout tables.
    let style: Style

    private var zmqContext: ZMQContext?
    private var clients: [String: NodeClient] = [:]
    /// The cluster file the nodes came from (nil: `--node` alone).
    private var clusterPath: String?
    /// The operator's key pair, loaded on the first secured node.
    private var operatorKeys: ZMQCurveKeyPair?

    init(globals: GlobalOptions, stdout: any TextOutput, stderr: any TextOutput, environment: RexCtlEnvironment) {
        self.globals = globals
        self.stdout = stdout
        self.stderr = stderr
        self.environment = environment
        self.style = Style(isEnabled: stdout.isTerminal && environment.variables["NO_COLOR"] == nil)
    }

    // MARK: nodes

    /// The nodes rexctl knows and where that list came from.
    ///
    /// `--node` entries alone when `--cluster` is not given; otherwise the cluster file
    /// (`--cluster`, `$REXCTL_CLUSTER`, `.deploy/cluster.json`) with `--node` entries overriding.
    func clusterNodes() throws(UsageError) -> (nodes: [NodeAddress], source: String) {
        if globals.clusterFile == nil && !globals.nodes.isEmpty {
            return (globals.nodes, "--node")
        }
        let path: String
        if let file = globals.clusterFile {
            path = file
        } else if let file = environment.variables[ClusterFile.environmentVariable], !file.isEmpty {
            path = file
        } else {
            path = environment.currentDirectory + "/" + ClusterFile.defaultRelativePath
        }
        let file: ClusterFile
        do {
            file = try ClusterFile.read(path: path)
        } catch {
            throw UsageError(
                "cannot use cluster file \(path): \(error.message)"
                    + " — pass --cluster FILE, set \(ClusterFile.environmentVariable), or address a node with --node ID=ENDPOINT")
        }
        clusterPath = path
        var nodes = file.nodes.map { NodeAddress(id: $0.id, control: $0.control, pub: $0.pub, key: $0.key) }
        for node in globals.nodes {
            if let index = nodes.firstIndex(where: { $0.id == node.id }) {
                nodes[index].control = node.control
            } else {
                nodes.append(node)
            }
        }
        return (nodes, path)
    }

    /// The node with this id.
    func node(_ id: String) throws(UsageError) -> NodeAddress {
        let (nodes, source) = try clusterNodes()
        guard let node = nodes.first(where: { $0.id == id }) else {
            let known = nodes.isEmpty ? "none" : nodes.map(\.id).joined(separator: ", ")
            throw UsageError("unknown node '\(id)' — known nodes: \(known) (from \(source))")
        }
        return node
    }

    // MARK: connections

    /// The (cached) client for `node`.
    func client(for node: NodeAddress) throws -> NodeClient {
        if let client = clients[node.id] { return client }
        let context: ZMQContext
        if let existing = zmqContext {
            context = existing
        } else {
            do {
                context = try ZMQContext(ioThreads: 1, maxSockets: 1024)
            } catch {
                throw CommandFailure(.failure, "cannot start ZeroMQ: \(error)")
            }
            zmqContext = context
        }
        var curve: (keyPair: ZMQCurveKeyPair, serverKey: ZMQCurveKey)?
        if let key = node.key {
            guard let serverKey = ZMQCurveKey(z85: key) else {
                throw CommandFailure(.nodeError, "the cluster file's key for node \(node.id) is not a CURVE key — fix its \"key\"")
            }
            curve = (try operatorKeyPair(for: node), serverKey)
        }
        let client = try NodeClient(context: context, node: node, curve: curve)
        clients[node.id] = client
        return client
    }

    /// Where rexctl's own key file is: `--key`, else `$REXCTL_KEY`, else `keys/operator.key` beside
    /// the cluster file.
    var operatorKeyPath: String {
        if let file = globals.keyFile { return file }
        if let file = environment.variables[OperatorKey.environmentVariable], !file.isEmpty { return file }
        let folder = clusterPath.map { ($0 as NSString).deletingLastPathComponent } ?? ""
        return (folder.isEmpty ? "." : folder) + "/" + OperatorKey.defaultRelativePath
    }

    /// The operator's key pair (read once): a secured node needs it.
    private func operatorKeyPair(for node: NodeAddress) throws -> ZMQCurveKeyPair {
        if let operatorKeys { return operatorKeys }
        let pair = try OperatorKey.load(path: operatorKeyPath, for: node.id)
        operatorKeys = pair
        return pair
    }

    /// One request to one node with the global timeout; its result read as a `Document`.
    func request<Document: Decodable>(_ node: NodeAddress, _ operation: ControlOperation, _ type: Document.Type) throws -> Document {
        try client(for: node).request(operation, type, timeout: globals.requestTimeout)
    }

    /// Closes every socket and the ZeroMQ context (linger 0: returns at once).
    func close() {
        for client in clients.values { client.close() }
        clients = [:]
        if let context = zmqContext {
            try? context.terminate(timeout: .seconds(1))
            zmqContext = nil
        }
    }

    // MARK: output

    /// Prints a document on one line (for `-o json`), as ``TerminalJSON`` writes it.
    func printJSON(_ document: some Encodable) {
        stdout.line(TerminalJSON.text((try? ControlCodec.encode(document)) ?? Array("null".utf8)))
    }

    /// Prints one of rexctl's own documents on one line (for `-o json`).
    func printJSON(_ document: OrderedJSON) {
        stdout.line(document.text)
    }
}

/// The process environment rexctl reads, injectable for tests.
struct RexCtlEnvironment: Sendable {
    var variables: [String: String]
    var currentDirectory: String

    /// The real process environment and working directory.
    static var process: RexCtlEnvironment {
        RexCtlEnvironment(
            variables: ProcessInfo.processInfo.environment,
            currentDirectory: FileManager.default.currentDirectoryPath)
    }
}
