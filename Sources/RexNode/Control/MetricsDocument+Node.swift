import RexCluster
import RexControl
import SwiftRex

extension MetricsDocument {
    /// The metrics of a node from what it counts: the engine, its sockets, what its feature
    /// reports of its state, its store's mailbox and the process. Per-kind channel counts come
    /// from a store run with a channel classifier (nil without one).
    init(
        uptimeMs: Int, reconcile counters: ReconcileCounters, io: NodeIO.Counters, feature: FeatureReport,
        mailbox: (depth: Int, maxDepth: Int), process: Process,
        controlRequests: [String: [String: Int]]? = nil
    ) {
        let follows = feature.follows
        let lifecycle = Self.lifecycleCounts(counters)
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
                liveByKind: Self.liveCounts(counters),
                opensByKind: lifecycle?.opens, cancelsByKind: lifecycle?.cancels, recreatesByKind: lifecycle?.recreates
            ),
            messages: Messages(
                published: io.published, received: io.received, malformed: io.malformed, oversized: io.oversized,
                gaps: follows.gaps, duplicates: follows.duplicates,
                reordered: follows.reordered, restarts: follows.restarts, evicted: follows.evicted
            ),
            snapshots: Snapshots(served: io.snapshotsServed, refused: io.snapshotsRefused),
            limits: Limits(refusedActions: feature.refusedActions, subscriptionsUntracked: io.subscriptionsUntracked),
            mailbox: Mailbox(depth: mailbox.depth, maxDepth: mailbox.maxDepth),
            sockets: Sockets(open: io.socketsOpen, created: io.socketsCreated),
            process: process,
            members: Members(counting: feature.peers.map(\.status)),
            controlRequests: controlRequests,
            security: io.security
        )
        membership = Membership(socket: io.membership, machine: io.membershipMachine, peers: feature.peers)
        authority = io.authority
    }
}

/// Reads a node's metrics for the control `metrics` operation and `GET /metrics` alike: what
/// only the reactor may touch is copied there, the rest is built off it.
struct NodeMetricsSampler<Feature: ClusterFeature> {
    let store: Store<Feature.Action, Feature.State, Feature.Environment>
    let io: NodeIO
    let startedAt: ContinuousClock.Instant
    /// The control service's request counts (reactor-confined, copied in `sample()`).
    var controlRequests: ControlRequestTally?
    /// A durable node's journal dispatch (reactor-confined, read in `sample()`).
    var journal: DurableDispatch<Feature>?

    /// Copies the socket counters, the state and the mailbox depth (on the reactor) and returns
    /// the work that completes the document: awaiting the engine's counters and reading /proc,
    /// to run off the reactor.
    func sample() -> @Sendable (Store<Feature.Action, Feature.State, Feature.Environment>) async -> MetricsDocument {
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
                uptimeMs: uptimeMs, reconcile: counters, io: io, feature: Feature.report(state),
                mailbox: (mailbox.current, mailbox.max), process: .current,
                controlRequests: requests)
            document.journal = journal
            document.feature = Feature.identity
            return document
        }
    }
}

extension NodeMetricsSampler {
    /// ``sample()`` with the store it reads: the work that completes the document.
    func sampleDocument() -> @Sendable () async -> MetricsDocument {
        let build = sample()
        let store = self.store
        return { await build(store) }
    }
}

extension MetricsDocument.Process {
    /// This process, read from /proc (file reads: call it off the reactor).
    static var current: Self {
        Self(rssBytes: ProcessStats.residentBytes, fds: ProcessStats.openFileDescriptors, cpuSeconds: ProcessStats.cpuSeconds)
    }
}

extension MetricsDocument {
    /// Opens, cancels and recreates by kind, from a store run with a channel classifier (nil
    /// without one).
    static func lifecycleCounts(_ counters: ReconcileCounters) -> (opens: [String: Int], cancels: [String: Int], recreates: [String: Int])?
    {
        guard !counters.byClass.isEmpty else { return nil }
        var opens: [String: Int] = [:], cancels: [String: Int] = [:], recreates: [String: Int] = [:]
        for counts in counters.byClass {
            opens[counts.name] = counts.opens
            cancels[counts.name] = counts.cancels
            recreates[counts.name] = counts.recreates
        }
        return (opens, cancels, recreates)
    }

    /// Live channels by kind, every kind present, from a store run with a channel classifier
    /// (nil without one, never a map of zeros): live instances of a class are its opens less its
    /// cancels (a recreate is one of each), so this costs O(kinds) where counting a keep
    /// snapshot walks every channel.
    static func liveCounts(_ counters: ReconcileCounters) -> [String: Int]? {
        guard !counters.byClass.isEmpty else { return nil }
        return Dictionary(counters.byClass.map { ($0.name, $0.opens - $0.cancels) }) { $1 }
    }
}
