import Foundation
public import RexCluster
public import RexControl

/// How to run one node: its id, where it binds, whom it connects to, and its timing.
public struct NodeConfiguration: Sendable, Equatable {
    /// The node's id: what peers, operators and log lines call it.
    public var id: String
    /// Where the node publishes (bind). `tcp://127.0.0.1:*` picks a free port.
    public var pubEndpoint: String
    /// Where the node answers control requests (bind).
    public var controlEndpoint: String
    /// Where the node serves HTTP `GET /metrics` and `/healthz` (bind, `tcp://` only); nil: off.
    public var metricsEndpoint: String?
    /// Peers known at start: id → their PUB endpoint. Each is a first member of the node's SWIM
    /// membership, so each needs its membership endpoint in `membershipPeers` too (see
    /// `addPeer(_:pub:membership:)`).
    public var peers: [String: String]
    /// Feed interval, follow settle and limits.
    public var settings: NodeSettings
    /// The least severe log line written.
    public var logLevel: NodeLogger.Level
    /// How log lines are written: `key=value` text (default) or JSON.
    public var logFormat: LogFormat = .text
    /// CURVE keys and who may connect; nil: the node runs plain (and says so at start).
    public var security: NodeSecurity?
    /// Run plain even where that is refused by default (a control endpoint off loopback).
    public var insecure: Bool = false
    /// The node's data directory and durability (`--data-dir`); nil: nothing survives the process.
    public var durable: DurableOptions?
    /// Where the node's SWIM membership binds (`--membership`), the node's only membership:
    /// other members probe it there. `tcp://127.0.0.1:*` picks a free port.
    public var membershipEndpoint: String
    /// The membership endpoints of peers known from the start (a cluster file or `--peer`), by
    /// id; each needs its publisher in `peers` too.
    public var membershipPeers: [String: String] = [:]
    /// Membership endpoints of running members to join through (`--join`, repeatable).
    public var membershipSeeds: [String] = []
    /// The host peers and operators are told to reach this node at (`--advertise`), apart from
    /// where it binds: its `tcp://` publisher, membership and control endpoints are announced with
    /// this host and their bound ports. Nil: announced as bound. See `advertised(_:)`.
    public var advertiseHost: String?
    /// SWIM's protocol period in ms (`--protocol-period`): one probe per member per period, so a
    /// member's idle cost goes as 1 / period and detection time with the period. The ping timeout
    /// is 40 % of it. Every member of a cluster should run the same period.
    public var membershipPeriodMs: Int = NodeConfiguration.defaultMembershipPeriodMs
    /// The default protocol period (100 ms), and the bounds `--protocol-period` takes.
    public static let defaultMembershipPeriodMs = 100
    /// The protocol periods `--protocol-period` accepts, in ms.
    public static let membershipPeriodRangeMs = 20...10_000

    /// A node's configuration; `validate()` checks it before `Node.start` binds anything.
    public init(
        id: String,
        pubEndpoint: String = "tcp://127.0.0.1:7101",
        controlEndpoint: String = "tcp://127.0.0.1:7201",
        membershipEndpoint: String = "tcp://127.0.0.1:7301",
        peers: [String: String] = [:],
        settings: NodeSettings = NodeSettings(),
        logLevel: NodeLogger.Level = .info,
        metricsEndpoint: String? = nil,
        durable: DurableOptions? = nil
    ) {
        self.durable = durable
        self.metricsEndpoint = metricsEndpoint
        self.id = id
        self.pubEndpoint = pubEndpoint
        self.controlEndpoint = controlEndpoint
        self.membershipEndpoint = membershipEndpoint
        self.peers = peers
        self.settings = settings
        self.logLevel = logLevel
    }

    /// Adds a peer known from the start: its publisher (`peers`) and its membership endpoint
    /// (`membershipPeers`), where this node first probes it.
    public mutating func addPeer(_ id: String, pub: String, membership: String) {
        peers[id] = pub
        membershipPeers[id] = membership
    }

    /// Checks what can be checked before binding anything.
    public func validate() throws(NodeError) {
        guard !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }) else {
            throw NodeError(.invalidConfiguration, "node id '\(id)' must be non-empty and use only letters, digits, '-', '_' or '.'")
        }
        for (name, endpoint) in [("--pub", pubEndpoint), ("--control", controlEndpoint)] + peers.map({ ("--peer \($0.key)", $0.value) }) {
            guard Self.isEndpoint(endpoint) else {
                throw NodeError(
                    .invalidConfiguration,
                    "\(name): '\(endpoint)' is not a ZeroMQ endpoint (expected tcp://HOST:PORT, ipc://PATH or inproc://NAME)")
            }
        }
        // Every peer is a member: one without a membership endpoint could never be probed, and
        // would stay unreported (`unknown`) for good.
        if let id = peers.keys.sorted().first(where: { membershipPeers[$0] == nil }) {
            throw NodeError(
                .invalidConfiguration,
                "peer '\(id)' has no membership endpoint: every node runs the SWIM membership (--peer ID=PUB,MEMBERSHIP)")
        }
        if let id = membershipPeers.keys.sorted().first(where: { peers[$0] == nil }) {
            throw NodeError(.invalidConfiguration, "peer '\(id)' has a membership endpoint but no publisher")
        }
        let named =
            [("--membership", membershipEndpoint)]
            + membershipPeers.sorted(by: { $0.key < $1.key }).map({ ("membership of \($0.key)", $0.value) })
            + membershipSeeds.map { ("--join", $0) }
        guard Self.membershipPeriodRangeMs.contains(membershipPeriodMs) else {
            throw NodeError(
                .invalidConfiguration,
                "--protocol-period takes \(Self.membershipPeriodRangeMs.lowerBound) to \(Self.membershipPeriodRangeMs.upperBound) ms (got \(membershipPeriodMs))"
            )
        }
        guard membershipSeeds.count <= 64 else {
            throw NodeError(.invalidConfiguration, "--join takes at most 64 seeds (got \(membershipSeeds.count))")
        }
        for (name, endpoint) in named {
            guard Self.isEndpoint(endpoint), !endpoint.contains(" "), endpoint.utf8.count <= 60 else {
                throw NodeError(.invalidConfiguration, "\(name): '\(endpoint)' is not a ZeroMQ endpoint of at most 60 bytes")
            }
        }
        guard ![pubEndpoint, controlEndpoint, metricsEndpoint].contains(membershipEndpoint) || membershipEndpoint.hasSuffix(":*") else {
            throw NodeError(
                .invalidConfiguration, "--membership must differ from --pub, --control and --metrics (got \(membershipEndpoint))")
        }
        try validateAdvertise()
        guard pubEndpoint != controlEndpoint || pubEndpoint.hasSuffix(":*") else {
            throw NodeError(.invalidConfiguration, "--pub and --control must differ (both are \(pubEndpoint))")
        }
        if let metricsEndpoint {
            // HTTP runs over TCP: ZMQ_STREAM would accept ipc:// too, but no scraper speaks it.
            guard metricsEndpoint.hasPrefix("tcp://"), Self.isEndpoint(metricsEndpoint) else {
                throw NodeError(.invalidConfiguration, "--metrics: '\(metricsEndpoint)' is not a TCP endpoint (expected tcp://HOST:PORT)")
            }
            guard ![pubEndpoint, controlEndpoint].contains(metricsEndpoint) || metricsEndpoint.hasSuffix(":*") else {
                throw NodeError(.invalidConfiguration, "--metrics must differ from --pub and --control (got \(metricsEndpoint))")
            }
        }
        if security == nil && !insecure && !Self.isLocal(controlEndpoint) {
            throw NodeError(
                .invalidConfiguration,
                "--control \(controlEndpoint) is reachable from other hosts and this node has no CURVE keys:"
                    + " anyone who can reach it could command the node. Run it secured (a cluster file with keys, see README \"Security\"),"
                    + " bind the control endpoint to 127.0.0.1, or pass --insecure to accept the risk")
        }
        guard settings.feedIntervalMs > 0 else {
            throw NodeError(.invalidConfiguration, "feed interval must be positive (got \(settings.feedIntervalMs) ms)")
        }
        guard settings.followSettleMs >= 0 else {
            throw NodeError(.invalidConfiguration, "follow settle must not be negative (got \(settings.followSettleMs) ms)")
        }
        for (name, value) in [
            ("feed interval", settings.feedIntervalMs), ("follow settle", settings.followSettleMs),
        ] where value > NodeCommand.maxMilliseconds {
            throw NodeError(.invalidConfiguration, "\(name) must be at most \(NodeCommand.maxMilliseconds) ms (got \(value))")
        }
        for (flag, value) in settings.limits.all where !(1...NodeCommand.maxLimit).contains(value) {
            throw NodeError(.invalidConfiguration, "\(flag) must be from 1 to \(NodeCommand.maxLimit) (got \(value))")
        }
        if let durable {
            guard !durable.directory.isEmpty, !durable.directory.utf8.contains(0) else {
                throw NodeError(.invalidConfiguration, "--data-dir must be a directory path")
            }
            for (flag, value) in [
                ("--compact-actions", durable.compactEveryActions), ("--compact-bytes", durable.compactEveryBytes),
                ("max pending actions", durable.maxPendingActions), ("max pending bytes", durable.maxPendingBytes),
            ]
            where !(1...NodeCommand.maxLimit).contains(value) {
                throw NodeError(.invalidConfiguration, "\(flag) must be from 1 to \(NodeCommand.maxLimit) (got \(value))")
            }
        }
    }

    /// Whether only this host can reach `endpoint`: ipc, inproc, or tcp on a loopback address.
    static func isLocal(_ endpoint: String) -> Bool {
        guard endpoint.hasPrefix("tcp://") else { return true }
        let rest = endpoint.dropFirst(6)
        let host = rest.lastIndex(of: ":").map { rest[..<$0] } ?? rest
        return host == "localhost" || host.hasPrefix("127.") || host == "[::1]" || host == "::1"
    }

    static func isEndpoint(_ text: String) -> Bool {
        if text.hasPrefix("tcp://") {
            let rest = text.dropFirst(6)
            guard let colon = rest.lastIndex(of: ":") else { return false }
            let port = rest[rest.index(after: colon)...]
            return !rest[..<colon].isEmpty && (port == "*" || (UInt16(port) != nil))
        }
        return (text.hasPrefix("ipc://") && text.count > 6) || (text.hasPrefix("inproc://") && text.count > 9)
    }
}

extension ClusterFile {
    /// Reads the cluster file a node starts from (see `ClusterFile.read(path:)`).
    public static func load(_ path: String) throws(NodeError) -> ClusterFile {
        do {
            return try read(path: path)
        } catch {
            throw NodeError(.invalidConfiguration, "cannot use cluster file \(path): \(error.message)")
        }
    }

    /// The configuration of node `id`: its endpoints, and every other node as a peer (the first
    /// members of its SWIM membership; more join later through `--join`).
    public func configuration(for id: String) throws(NodeError) -> NodeConfiguration {
        guard let me = nodes.first(where: { $0.id == id }) else {
            throw NodeError(
                .invalidConfiguration, "node '\(id)' is not in the cluster file (it has: \(nodes.map(\.id).joined(separator: ", ")))")
        }
        // A node binds its own publisher and membership and probes every other one, whose
        // publisher it then connects to: all need both.
        if let missing = nodes.first(where: { $0.pub == nil }) {
            throw NodeError(.invalidConfiguration, "node '\(missing.id)' in the cluster file has no \"pub\" endpoint")
        }
        if let missing = nodes.first(where: { $0.membership == nil }) {
            throw NodeError(.invalidConfiguration, "node '\(missing.id)' in the cluster file has no \"membership\" endpoint")
        }
        var configuration = NodeConfiguration(
            id: id, pubEndpoint: me.pub ?? "", controlEndpoint: me.control, membershipEndpoint: me.membership ?? "",
            metricsEndpoint: me.metrics)
        for node in nodes where node.id != id {
            configuration.addPeer(node.id, pub: node.pub ?? "", membership: node.membership ?? "")
        }
        return configuration
    }
}

/// Why a node could not start.
public struct NodeError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure, and the exit code it maps to.
    public enum Code: Sendable {
        /// A bad flag or value (exit 64).
        case invalidConfiguration
        /// A socket could not be bound or created (exit 1).
        case socketFailure
        /// The data directory's state cannot be used: damaged, in use, or unreadable (exit 1).
        case unusableState
    }

    /// What kind of failure.
    public let code: Code
    /// What failed and why (names the flag, endpoint or directory).
    public let message: String

    /// A failure of this kind.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
