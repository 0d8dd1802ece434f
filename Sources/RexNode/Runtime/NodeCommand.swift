import Dispatch
import Foundation
public import RexCluster
import RexControl

/// The `rexnode` command line: parses flags into a configuration, runs the node until SIGINT or
/// SIGTERM, and maps failures to exit codes (64 usage, 1 runtime failure).
public enum NodeCommand {
    /// The `--help` text.
    public static let usage = """
        USAGE: rexnode --id ID [--pub ENDPOINT] [--control ENDPOINT] [--membership ENDPOINT]
                       [--peer ID=PUB,MEMBERSHIP ...] [--join ENDPOINT ...] [options]
               rexnode --cluster FILE --id ID [options]

        Runs one node of a SwiftRex cluster: a store on its own reactor thread, publishing feeds over
        ZeroMQ PUB/SUB and answering control requests (see docs/protocol.md). Its membership is SWIM
        (see README, "Membership"): it probes its peers at their membership endpoints (one probe
        per protocol period, 100 ms by default), and connects to the publisher of every member alive or suspect. A node with
        no peers and no --join is a cluster of one until another joins through it.

        OPTIONS:
          --id ID                  This node's id (letters, digits, '-', '_', '.').
          --pub ENDPOINT           Where to publish (default tcp://127.0.0.1:7101).
          --control ENDPOINT       Where to answer control requests (default tcp://127.0.0.1:7201).
          --metrics ENDPOINT       Serve HTTP GET /metrics (Prometheus text), /healthz (live) and /readyz
                                   (200 once joined, 503 before) there, e.g. tcp://127.0.0.1:9101
                                   (default: off; a cluster file's "metrics").
          --membership ENDPOINT    Where the SWIM membership answers probes (default tcp://127.0.0.1:7301;
                                   a cluster file's "membership").
          --peer ID=PUB,MEMBERSHIP A member known from the start: its publisher and its membership endpoint;
                                   repeatable. It is probed at once: alive, or suspect and then dead.
          --join ENDPOINT          Join a running cluster through a member's membership endpoint and learn
                                   the others from it; repeatable. A host name that does not resolve yet
                                   is looked up again with backoff (250 ms doubling to 10 s) until it does.
          --advertise HOST         Tell peers and operators HOST (a DNS name or address they can reach) with
                                   the bound ports, where the node binds e.g. tcp://0.0.0.0:7101 (needed
                                   then: peers cannot dial a wildcard).
          --protocol-period MS     SWIM's protocol period, 20 to 10000 (default 100): idle cost goes as
                                   1 / MS, detection time with MS. Give every member the same.
          --cluster FILE           Read endpoints and peers from a cluster file (JSON: {"nodes": [{"id", "pub",
                                   "control", "membership"}]}): every other node is a peer.
          --feed-interval MS       At most one message per feed per interval (default 100).
          --follow-settle MS       Quiet time before a follow's subscription (re)opens (default 50); the follows
                                   restored from --data-dir at start open at once.
                                   Every MS flag takes 0 to 86400000 (a day).
          --log-level LEVEL        debug, info, warning or error (default info).
          --log-format FORMAT      text (key=value, default) or json (one object per line: time, level,
                                   node, event, fields).

        SECURITY (see README, "Security"): a node whose cluster-file entry has a "key" runs secured — CURVE
        on every socket, members only on its publisher, operators only on its control endpoint.
          --key FILE               Its key file (default: keys/ID.key beside the cluster file; rexctl keygen writes one).
          --operators FILE         Operators and roles (default: operators.json beside the cluster file).
          --authority FILE         The cluster authority's public key: take the member and operator keys it
                                   admits or revokes while running (default: authority.pub beside the
                                   cluster file, when there is one).
          --insecure               Run plain even with keys, or with a control endpoint off loopback (logged at start).

        DURABILITY (see README, "Durability"):
          --data-dir DIR           Keep the node's feeds, follows and peer changes in DIR (SQLite, WAL
                                   mode): restored at start, before the control endpoint opens.
          --durability MODE        batch: answer "accepted" once the action's batch is committed
                                   (fsync'd); none: answer at once (default batch with --data-dir).
          --compact-actions N      Fold the journal into a new snapshot every N actions (default 50000).
          --compact-bytes N        … or every N journal bytes (default 16777216).

        LIMITS (what the node accepts from outside; over a limit: an error reply or a counted drop):
          --max-name-bytes N       Longest topic, name, peer id, sender or endpoint (default 256).
          --max-value-bytes N      Largest feed value or message payload (default 16384).
          --max-request-bytes N    Largest control request (default 1048576).
          --max-reply-bytes N      Largest control reply (default 67108864).
          --max-feeds N            Feeds held at most (default 10000).
          --max-follows N          Follows held at most (default 200000).
          --max-peers N            Peers known at most (default 1000).
          --max-streams-per-follow N
                                   (sender, topic) sequences one follow remembers (default 1024).
          --queue-messages N       Messages queued per subscriber and per peer (default 10000).
          --snapshot-rate N        Retained values sent to late joiners per second (default 20000).
          -h, --help               Show this help.

        $(NAME) in an argument is the environment variable NAME, as Kubernetes expands a container's args
        (so one pod spec runs where the runtime does not, e.g. podman kube play); $$ is a $.

        Stop it with SIGINT or SIGTERM: it releases every channel, closes its sockets and exits 0.
        """

    /// The largest millisecond flag: a day (larger ones would only overflow timer arithmetic).
    static let maxMilliseconds = 86_400_000
    /// The largest limit flag: 2^31 - 1, which libzmq's `int` options and any count here hold.
    static let maxLimit = Int(Int32.max)

    /// What the command line asks for.
    public enum Invocation: Equatable, Sendable {
        /// `--help`: print the usage.
        case help
        /// Run a node so configured.
        case run(NodeConfiguration)
    }

    /// A usage error (exit 64).
    public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
        /// What is wrong with the command line.
        public let message: String
        public var description: String { message }
    }

    /// Runs the command for a node of `feature`: prints help, or starts the node and waits for
    /// SIGINT/SIGTERM. Returns the process exit code. A node binary is this one call:
    ///
    /// ```swift
    /// exit(await NodeCommand.main(Chat.self, arguments: Array(CommandLine.arguments.dropFirst())))
    /// ```
    public static func main<Feature: ClusterFeature>(_ feature: Feature.Type, arguments: [String]) async -> Int32 {
        let invocation: Invocation
        do {
            invocation = try parse(EnvironmentReferences.expand(arguments, environment: ProcessInfo.processInfo.environment))
        } catch {
            writeError(
                "Error: \(error.message)\nUSAGE: rexnode --id ID [--pub ENDPOINT] [--control ENDPOINT] [--membership ENDPOINT] [--peer ID=PUB,MEMBERSHIP ...] (see rexnode --help)\n"
            )
            return 64
        }
        switch invocation {
        case .help:
            print(usage)
            return 0
        case .run(let configuration):
            let node: Node<Feature>
            do {
                node = try Node<Feature>.start(configuration)
            } catch {
                writeError("Error: node \(configuration.id) could not start: \(error.message)\n")
                return error.code == .invalidConfiguration ? 64 : 1
            }
            await waitForTerminationSignal()
            await node.stop()
            return 0
        }
    }

    /// Suspends until SIGINT or SIGTERM arrives.
    static func waitForTerminationSignal() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queue = DispatchQueue(label: "rexnode.signals")
            let resumed = SignalLatch(continuation)
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { resumed.fire() }
                resumed.keep(source)
                source.resume()
            }
        }
    }

    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// One `--peer ID=PUB,MEMBERSHIP`: a peer's id, its publisher and its membership endpoint (the
/// endpoints are checked with the configuration). Split at the last comma: a membership endpoint
/// never holds one (a `tcp://` endpoint cannot, and validation refuses what is not one).
struct PeerSpec: Equatable, Sendable {
    let id: String
    let pub: String
    let membership: String

    init?(_ spec: String) {
        guard let equals = spec.firstIndex(of: "="), equals != spec.startIndex else { return nil }
        let endpoints = spec[spec.index(after: equals)...]
        guard let comma = endpoints.lastIndex(of: ","), comma != endpoints.startIndex, endpoints.index(after: comma) != endpoints.endIndex
        else { return nil }
        id = String(spec[..<equals])
        pub = String(endpoints[..<comma])
        membership = String(endpoints[endpoints.index(after: comma)...])
    }
}

/// Resumes a continuation once, whichever signal comes first, and keeps the sources alive.
private final class SignalLatch: @unchecked Sendable {
    // @unchecked Sendable: `sources` is written only before each source is resumed (so before any
    // handler can run), and `continuation` only by handlers on the serial "rexnode.signals" queue.
    private var continuation: CheckedContinuation<Void, Never>?
    private var sources: [any DispatchSourceSignal] = []

    init(_ continuation: CheckedContinuation<Void, Never>) { self.continuation = continuation }

    func keep(_ source: any DispatchSourceSignal) { sources.append(source) }

    func fire() {
        continuation?.resume()
        continuation = nil
    }
}
