import RexCluster
import RexControl
import RexFeeds
import SwiftRex

extension MetricsDocument {
    /// The metrics of a node from what it counts: the engine, its sockets, its state, its
    /// store's mailbox and the process.
    init(
        uptimeMs: Int, reconcile counters: ReconcileCounters, io: NodeIO.Counters, state: NodeState,
        mailbox: (depth: Int, maxDepth: Int), process: Process, liveByKind: [String: Int]? = nil,
        controlRequests: [String: [String: Int]]? = nil
    ) {
        let follows = FollowTotals(state.follows)
        let lifecycle = ChannelKind.lifecycleCounts(counters)
        self.init(
            uptimeMs: uptimeMs,
            reconcile: Reconcile(
                cycles: counters.cycles, changedCycles: counters.changedCycles,
                lastMs: counters.lastDuration.milliseconds, maxMs: counters.maxDuration.milliseconds,
                buildMs: counters.totalBuildDuration.milliseconds, diffMs: counters.totalDiffDuration.milliseconds,
                p50Ms: counters.cycleDurations.percentile(0.5).milliseconds,
                p99Ms: counters.cycleDurations.percentile(0.99).milliseconds,
                histogram: counters.cycleDurations.buckets.map {
                    HistogramBucket(upperEdgeNanoseconds: Int(clamping: $0.upperEdgeNanoseconds), count: $0.count)
                }
            ),
            channels: Channels(
                opens: counters.opens, cancels: counters.cancels, recreates: counters.recreates, live: counters.liveChannels,
                liveByKind: liveByKind,
                opensByKind: lifecycle?.opens, cancelsByKind: lifecycle?.cancels, recreatesByKind: lifecycle?.recreates
            ),
            messages: Messages(
                published: io.published, received: io.received, malformed: io.malformed, oversized: io.oversized,
                gaps: follows.gaps, duplicates: follows.duplicates,
                reordered: follows.reordered, restarts: follows.restarts, evicted: follows.evicted
            ),
            snapshots: Snapshots(served: io.snapshotsServed, refused: io.snapshotsRefused),
            limits: Limits(refusedActions: state.refused, subscriptionsUntracked: io.subscriptionsUntracked),
            mailbox: Mailbox(depth: mailbox.depth, maxDepth: mailbox.maxDepth),
            sockets: Sockets(open: io.socketsOpen, created: io.socketsCreated),
            process: process,
            members: Members(counting: state.peers.values.map(\.status)),
            controlRequests: controlRequests,
            security: io.security
        )
        membership = Membership(socket: io.membership, machine: io.membershipMachine, peers: state.peers.values)
    }
}

/// Reads a node's metrics for the control `metrics` operation and `GET /metrics` alike: what
/// only the reactor may touch is copied there, the rest is built off it.
struct NodeMetricsSampler {
    let store: Store<NodeAction, NodeState, NodeEnvironment>
    let io: NodeIO
    let startedAt: ContinuousClock.Instant
    /// The control service's request counts (reactor-confined, copied in `sample()`).
    var controlRequests: ControlRequestTally?
    /// A durable node's journal dispatch (reactor-confined, read in `sample()`).
    var journal: DurableDispatch?

    /// Copies the socket counters, the state and the mailbox depth (on the reactor) and returns
    /// the work that completes the document: awaiting the engine's counters and reading /proc,
    /// to run off the reactor.
    func sample() -> @Sendable (Store<NodeAction, NodeState, NodeEnvironment>) async -> MetricsDocument {
        let io = self.io.flushAndCount()
        let state = store.state
        let mailbox = store.mailboxDepth
        let uptimeMs = (ContinuousClock.now - startedAt).wholeMilliseconds
        let requests = controlRequests?.counts
        let journal = self.journal?.journalMetrics()
        return { store in
            // The counters alone (O(kinds)): a keep snapshot copies every channel on the reactor
            // (at 100,000 follows a request cost ~220 ms of node CPU with it, ~4 ms without).
            // Live by kind comes from the same read, so it agrees with the totals.
            let counters = await store.reconcileCounters()
            var document = MetricsDocument(
                uptimeMs: uptimeMs, reconcile: counters, io: io, state: state,
                mailbox: (mailbox.current, mailbox.max), process: .current, liveByKind: ChannelKind.liveCounts(counters),
                controlRequests: requests)
            document.journal = journal
            document.feature = NodeFeature.identity
            return document
        }
    }
}

extension MetricsDocument.Process {
    /// This process, read from /proc (file reads: call it off the reactor).
    static var current: Self {
        Self(rssBytes: ProcessStats.residentBytes, fds: ProcessStats.openFileDescriptors, cpuSeconds: ProcessStats.cpuSeconds)
    }
}
