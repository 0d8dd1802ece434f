/// The result of `metrics`: the node's counters, grouped (docs/protocol.md, "Metrics fields").
public struct MetricsDocument: Codable, Sendable, Equatable {
    /// Milliseconds since the node started.
    public var uptimeMs: Int
    public var reconcile: Reconcile
    public var channels: Channels
    public var messages: Messages
    public var snapshots: Snapshots
    public var limits: Limits
    public var mailbox: Mailbox
    public var sockets: Sockets
    public var process: Process
    /// The node's peers by `Peer.Status`. Optional: nodes before it did not send it.
    public var members: Members?
    /// Control requests answered since start, by operation (`ping`, …, or `invalid` when the
    /// request could not be read) and result (`ok` or the error code). Optional: nodes before it
    /// did not send it.
    public var controlRequests: [String: [String: Int]]?
    /// What a secured node's gatekeeper decided; absent for a plain node (and older nodes).
    public var security: Security?
    /// A node with a data directory: its journal's commits, pending actions and recovery;
    /// absent without one (and from older nodes).
    public var journal: Journal?
    /// The SWIM membership's members by status and its messages; absent for a node without one
    /// (and older nodes).
    public var membership: Membership?
    /// The feature the node runs; absent from older nodes.
    public var feature: FeatureIdentity?
    /// A secured node's cluster authority (its statements, accepted and refused); absent for a
    /// node without one (and older nodes).
    public var authority: Authority?

    public init(
        uptimeMs: Int, reconcile: Reconcile, channels: Channels, messages: Messages, snapshots: Snapshots, limits: Limits,
        mailbox: Mailbox, sockets: Sockets, process: Process, members: Members? = nil,
        controlRequests: [String: [String: Int]]? = nil, security: Security? = nil,
        journal: Journal? = nil
    ) {
        self.security = security
        self.journal = journal
        self.uptimeMs = uptimeMs
        self.reconcile = reconcile
        self.channels = channels
        self.messages = messages
        self.snapshots = snapshots
        self.limits = limits
        self.mailbox = mailbox
        self.sockets = sockets
        self.process = process
        self.members = members
        self.controlRequests = controlRequests
    }

    /// Reconcile cycles: counts, and durations in ms.
    public struct Reconcile: Codable, Sendable, Equatable {
        public var cycles: Int
        public var changedCycles: Int
        public var lastMs: Double
        public var maxMs: Double
        /// Totals since start: evaluating supervise, and diffing and applying.
        public var buildMs: Double
        public var diffMs: Double
        /// Percentiles of whole cycles since start (within a bucket's width).
        public var p50Ms: Double
        public var p99Ms: Double
        /// The non-empty buckets of every cycle's duration.
        public var histogram: [HistogramBucket]

        public init(
            cycles: Int, changedCycles: Int, lastMs: Double, maxMs: Double, buildMs: Double, diffMs: Double, p50Ms: Double,
            p99Ms: Double, histogram: [HistogramBucket]
        ) {
            self.cycles = cycles
            self.changedCycles = changedCycles
            self.lastMs = lastMs
            self.maxMs = maxMs
            self.buildMs = buildMs
            self.diffMs = diffMs
            self.p50Ms = p50Ms
            self.p99Ms = p99Ms
            self.histogram = histogram
        }
    }

    /// One bucket of the cycle-duration histogram, written `[upper edge in ns, count]`.
    public struct HistogramBucket: Codable, Sendable, Equatable {
        public var upperEdgeNanoseconds: Int
        public var count: Int

        public init(upperEdgeNanoseconds: Int, count: Int) {
            self.upperEdgeNanoseconds = upperEdgeNanoseconds
            self.count = count
        }

        public init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            upperEdgeNanoseconds = try container.decode(Int.self)
            count = try container.decode(Int.self)
            guard container.isAtEnd else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a bucket is [edge, count]")
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(upperEdgeNanoseconds)
            try container.encode(count)
        }
    }

    /// Channel instances opened, cancelled and recreated since start, and live now.
    public struct Channels: Codable, Sendable, Equatable {
        public var opens: Int
        public var cancels: Int
        public var recreates: Int
        public var live: Int
        /// The live instances by kind (`feed`, `follow`, `peer`, `membership`, `publisher`;
        /// nodes before the SWIM membership also `heartbeat`), from the same engine snapshot as `live`. Optional: nodes before it did
        /// not send it.
        public var liveByKind: [String: Int]?
        /// `opens` by kind (the same kinds; they sum to `opens`). Optional: nodes before it
        /// did not send it.
        public var opensByKind: [String: Int]?
        /// `cancels` by kind (they sum to `cancels`). Optional, as `opensByKind`.
        public var cancelsByKind: [String: Int]?
        /// `recreates` by kind (they sum to `recreates`). Optional, as `opensByKind`.
        public var recreatesByKind: [String: Int]?

        public init(
            opens: Int, cancels: Int, recreates: Int, live: Int, liveByKind: [String: Int]? = nil,
            opensByKind: [String: Int]? = nil, cancelsByKind: [String: Int]? = nil, recreatesByKind: [String: Int]? = nil
        ) {
            self.opens = opens
            self.cancels = cancels
            self.recreates = recreates
            self.live = live
            self.liveByKind = liveByKind
            self.opensByKind = opensByKind
            self.cancelsByKind = cancelsByKind
            self.recreatesByKind = recreatesByKind
        }
    }

    /// Data-plane messages: what the node's sockets counted, and the follows' sums.
    public struct Messages: Codable, Sendable, Equatable {
        public var published: Int
        public var received: Int
        public var malformed: Int
        public var oversized: Int
        /// The follows' sums (saturating). A subscriber whose queue at a publisher is full loses
        /// messages there silently (the publisher's libzmq reports nothing): its follows count
        /// them as gaps, which are the figure to watch for a slow follower.
        public var gaps: Int
        public var duplicates: Int
        public var reordered: Int
        public var restarts: Int
        public var evicted: Int

        public init(
            published: Int, received: Int, malformed: Int, oversized: Int, gaps: Int, duplicates: Int,
            reordered: Int, restarts: Int, evicted: Int
        ) {
            self.published = published
            self.received = received
            self.malformed = malformed
            self.oversized = oversized
            self.gaps = gaps
            self.duplicates = duplicates
            self.reordered = reordered
            self.restarts = restarts
            self.evicted = evicted
        }
    }

    /// Snapshot requests answered, and values held back by the snapshot rate.
    public struct Snapshots: Codable, Sendable, Equatable {
        public var served: Int
        public var refused: Int

        public init(served: Int, refused: Int) {
            self.served = served
            self.refused = refused
        }
    }

    /// What the node refused at its limits.
    public struct Limits: Codable, Sendable, Equatable {
        /// The state's `refused`.
        public var refusedActions: Int
        public var subscriptionsUntracked: Int

        public init(refusedActions: Int, subscriptionsUntracked: Int) {
            self.refusedActions = refusedActions
            self.subscriptionsUntracked = subscriptionsUntracked
        }
    }

    /// Inputs waiting for the store's executor now, and the most that ever waited.
    public struct Mailbox: Codable, Sendable, Equatable {
        public var depth: Int
        public var maxDepth: Int

        public init(depth: Int, maxDepth: Int) {
            self.depth = depth
            self.maxDepth = maxDepth
        }
    }

    /// Sockets open now, and dedicated SUB sockets created so far.
    public struct Sockets: Codable, Sendable, Equatable {
        public var open: Int
        public var created: Int

        public init(open: Int, created: Int) {
            self.open = open
            self.created = created
        }
    }

    /// The node process: resident memory, open file descriptors and CPU time.
    public struct Process: Codable, Sendable, Equatable {
        public var rssBytes: Int
        public var fds: Int
        /// User plus system CPU time since the process started, in seconds. Optional: nodes
        /// before it did not send it.
        public var cpuSeconds: Double?

        public init(rssBytes: Int, fds: Int, cpuSeconds: Double? = nil) {
            self.rssBytes = rssBytes
            self.fds = fds
            self.cpuSeconds = cpuSeconds
        }
    }

    /// How many of the node's peers are in each `Peer.Status`.
    /// A secured node's handshakes (every connection to its CURVE sockets, answered by its ZAP
    /// handler) and the operations refused for an operator's role.
    public struct Security: Codable, Sendable, Equatable {
        public var handshakesAllowed: Int
        public var handshakesRefused: Int
        /// Requests refused with `forbidden` (a viewer's dispatch).
        public var forbidden: Int

        public init(handshakesAllowed: Int = 0, handshakesRefused: Int = 0, forbidden: Int = 0) {
            self.handshakesAllowed = handshakesAllowed
            self.handshakesRefused = handshakesRefused
            self.forbidden = forbidden
        }
    }

    public struct Members: Codable, Sendable, Equatable {
        public var unknown: Int
        public var alive: Int
        public var suspect: Int
        public var gone: Int

        public init(unknown: Int = 0, alive: Int = 0, suspect: Int = 0, gone: Int = 0) {
            self.unknown = unknown
            self.alive = alive
            self.suspect = suspect
            self.gone = gone
        }

        /// Counts `statuses`.
        public init(counting statuses: some Sequence<Peer.Status>) {
            self.init()
            for status in statuses { self[status] += 1 }
        }

        /// The count for one status.
        public subscript(status: Peer.Status) -> Int {
            get {
                switch status {
                case .unknown: return unknown
                case .alive: return alive
                case .suspect: return suspect
                case .gone: return gone
                }
            }
            set {
                switch status {
                case .unknown: unknown = newValue
                case .alive: alive = newValue
                case .suspect: suspect = newValue
                case .gone: gone = newValue
                }
            }
        }
    }
}
