/// Options every subcommand accepts (argument-parser's shared `@OptionGroup`), parsed once.
struct GlobalOptions: Sendable, Equatable {
    /// `-o table|json`.
    enum OutputFormat: String, Sendable {
        case table, json
    }

    /// `--cluster FILE`, if given.
    var clusterFile: String?
    /// `--node ID=ENDPOINT`, in order.
    var nodes: [NodeAddress] = []
    var output: OutputFormat = .table
    /// `--key FILE`, if given: the operator's CURVE key file for secured nodes.
    var keyFile: String?
    /// `--timeout`, if given (1ms to 24h); see ``requestTimeout``.
    var timeout: Duration?

    /// How long each request waits for its reply.
    var requestTimeout: Duration { timeout ?? GlobalOptions.defaultTimeout }

    static let defaultTimeout: Duration = .seconds(2)

    static let specs: [OptionSpec] = [
        .option(
            "--cluster", value: "file",
            help: "The cluster file (default: $REXCTL_CLUSTER, else .deploy/cluster.json in the current directory)."),
        .option(
            "--node", value: "id=endpoint",
            help: "Address a node directly by its control endpoint, e.g. n1=tcp://127.0.0.1:7201 (repeatable). "
                + "Without --cluster, only these nodes are used.",
            repeating: true),
        .option("-o", "--output", value: "format", help: "Output format: table or json (default: table)."),
        .option("--timeout", value: "duration", help: "How long to wait for each reply: 500ms, 2s, 1m (default: 2s)."),
        .option(
            "--key", value: "file",
            help: "Your CURVE key file for secured nodes (default: $REXCTL_KEY, else keys/operator.key beside the cluster file)."),
    ]

    init() {}

    /// Reads the global options from a scan.
    init(_ parsed: ParsedArguments) throws(UsageError) {
        clusterFile = parsed.value("--cluster")
        keyFile = parsed.value("--key")
        for text in parsed.all("--node") {
            guard let equals = text.firstIndex(of: "=") else {
                throw UsageError("--node expects ID=ENDPOINT, e.g. n1=tcp://127.0.0.1:7201, not '\(text)'")
            }
            let id = String(text[..<equals])
            let endpoint = String(text[text.index(after: equals)...])
            guard !id.isEmpty, endpoint.contains("://") else {
                throw UsageError("--node expects ID=ENDPOINT, e.g. n1=tcp://127.0.0.1:7201, not '\(text)'")
            }
            guard NumericOption.hasValidPort(endpoint) else {
                let ports = NumericOption.portRange
                throw UsageError(
                    "--node expects ID=ENDPOINT with a tcp port from \(ports.lowerBound) to "
                        + "\(ports.upperBound), e.g. n1=tcp://127.0.0.1:7201, not '\(text)'")
            }
            nodes.removeAll { $0.id == id }
            nodes.append(NodeAddress(id: id, control: endpoint, pub: nil))
        }
        if let text = parsed.value("--output") {
            guard let format = OutputFormat(rawValue: text) else {
                throw UsageError("-o expects 'table' or 'json', not '\(text)'")
            }
            output = format
        }
        if let text = parsed.value("--timeout") {
            timeout = try NumericOption.duration(text, option: "--timeout")
        }
    }
}
