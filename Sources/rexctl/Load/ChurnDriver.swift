import RexControl
import ZMQ

/// The knobs of one churn run.
struct ChurnSettings: Sendable {
    /// Follows per node (`churn-0` … `churn-<F-1>`).
    var follows: Int
    /// Target topic changes per second, over all nodes.
    var rate: Double
    /// How long the churn lasts.
    var duration: Duration
    /// Feeds each node publishes (`churn.<node>.<k>`).
    var feeds: Int
    /// Requests in flight per node before the schedule waits.
    var inFlight: Int
    /// Follows name the peer they follow (`from`): one dedicated SUB socket each.
    var fromPeers: Bool
    /// Bound on each reply.
    var requestTimeout: Duration
    var sampleInterval: Duration = .milliseconds(500)
    var feedInterval: Duration = .milliseconds(100)
    /// How long fds, sockets and live channels may take to return to their starting values.
    var settleTimeout: Duration = .seconds(5)
    /// How long the unfollows may take to leave the keep sets.
    var drainTimeout: Duration = .seconds(20)
}

/// One broken invariant: which node, which sample, which numbers.
struct ChurnViolation: Sendable, Equatable, CustomStringConvertible {
    var node: String
    var sample: String
    var message: String
    var description: String { "invariant broken on node \(node) at \(sample): \(message)" }
}

/// One node's view at one sample.
struct ChurnNodeSample: Sendable {
    var live: Int
    var settling: Int
    var churnFollows: Int
    var opens: Int
    var cancels: Int
    var depth: Int
    var fds: Int
    var socketsOpen: Int
}

/// One sample of every node.
struct ChurnSample: Sendable {
    var index: Int
    var elapsed: Double
    /// Acknowledged topic changes per second since the previous sample.
    var rate: Double
    var nodes: [ChurnNodeSample]
}

/// What one run measured: metrics before and after on every node, the samples, the counts.
struct ChurnRunResult: Sendable {
    var settings: ChurnSettings
    var nodeIDs: [String]
    /// Seconds the churn phase actually took.
    var elapsed: Double
    /// Topic changes acknowledged per node.
    var changes: [Int]
    /// Changes the schedule wanted by the end (target × duration).
    var scheduled: Int
    var before: [MetricsDocument]
    var after: [MetricsDocument]
    /// Metrics at the end of the churn phase (before unfollowing).
    var end: [MetricsDocument]
    var samples: [ChurnSample]
    var maxSampledDepth: [Int]
    var violations: [ChurnViolation]
}

/// Drives one churn run over one DEALER per node, single-threaded: requests are pipelined
/// (up to ``ChurnSettings/inFlight`` per node) and replies matched by request id; changes follow
/// a deadline schedule (change k is due at start + k/R), feeds are set every 100 ms, and every
/// node's metrics and keep set are sampled twice a second and checked.
final class ChurnDriver {
    let nodes: [NodeAddress]
    let clients: [NodeClient]
    let settings: ChurnSettings
    let progress: any TextOutput
    let reportViolation: (ChurnViolation) -> Void

    private let poller: ZMQPoller
    private let clock = ContinuousClock()
    private var pending: [[JSONValue: Pending]]
    private var replies: [[JSONValue: ReceivedReply]]
    private var dispatchesInFlight: [Int]
    private var failedDispatch: NodeRequestError?
    private var feedCounter = 0

    private struct Pending {
        var isDispatch: Bool
        var sentAt: ContinuousClock.Instant
        var countsAsChange: Bool
    }

    private var acknowledgedChanges: [Int]

    init(
        nodes: [NodeAddress], clients: [NodeClient], settings: ChurnSettings, progress: any TextOutput,
        reportViolation: @escaping (ChurnViolation) -> Void
    ) throws {
        self.nodes = nodes
        self.clients = clients
        self.settings = settings
        self.progress = progress
        self.reportViolation = reportViolation
        poller = ZMQPoller(capacity: max(1, clients.count))
        for client in clients {
            do {
                _ = try poller.register(client.socket)
            } catch {
                throw NodeRequestError(node: client.node, kind: .transport(error.description))
            }
        }
        pending = Array(repeating: [:], count: nodes.count)
        replies = Array(repeating: [:], count: nodes.count)
        dispatchesInFlight = Array(repeating: 0, count: nodes.count)
        acknowledgedChanges = Array(repeating: 0, count: nodes.count)
    }

    // MARK: names

    static func followName(_ index: Int) -> String { "churn-\(index)" }
    static func feedTopic(node: String, _ index: Int) -> String { "churn.\(node).\(index)" }
    static let followPrefix = "follow[churn-"

    /// The feeds node `n` can follow: every other node's, as (topic, publisher id).
    func topics(for n: Int) -> [(topic: String, peer: String)] {
        var list: [(String, String)] = []
        for (index, node) in nodes.enumerated() where index != n {
            for k in 0..<settings.feeds { list.append((ChurnDriver.feedTopic(node: node.id, k), node.id)) }
        }
        return list
    }

    // MARK: request plumbing

    @discardableResult
    private func send(_ n: Int, _ operation: ControlOperation, action: JSONValue? = nil, change: Bool = false) throws -> JSONValue {
        let id = try clients[n].send(ControlRequest(operation, action: action), timeout: settings.requestTimeout)
        pending[n][id] = Pending(isDispatch: operation == .dispatch, sentAt: clock.now, countsAsChange: change)
        if operation == .dispatch { dispatchesInFlight[n] += 1 }
        return id
    }

    /// Reads every reply that has arrived, without blocking.
    private func receiveAvailable() throws {
        for n in clients.indices {
            let client = clients[n]
            while true {
                let received: ReceivedReply?
                do {
                    received = try client.receive()
                } catch {
                    throw NodeRequestError(node: client.node, kind: .transport(error.description))
                }
                guard let reply = received else { break }
                // Judged like every other reply (version, "ok"); one without a pending id is dropped.
                guard let id = reply.id, let request = pending[n].removeValue(forKey: id) else { continue }
                if request.isDispatch {
                    dispatchesInFlight[n] -= 1
                    switch reply.result(DispatchDocument.self) {
                    case .success:
                        if request.countsAsChange { acknowledgedChanges[n] += 1 }
                    case .failure(let failure):
                        if failedDispatch == nil { failedDispatch = NodeRequestError(node: client.node, failure) }
                    }
                } else {
                    replies[n][id] = reply
                }
            }
        }
    }

    /// Fails when a dispatch was refused or a reply is overdue.
    private func checkHealth() throws {
        if let failedDispatch { throw failedDispatch }
        let now = clock.now
        for n in pending.indices {
            for request in pending[n].values where request.sentAt.duration(to: now) > settings.requestTimeout {
                throw clients[n].silence(after: settings.requestTimeout)
            }
        }
    }

    /// Handles replies, waiting at most until `deadline` for the next one.
    private func pumpOnce(until deadline: ContinuousClock.Instant) throws {
        try receiveAvailable()
        let remaining = clock.now.duration(to: deadline)
        if remaining > .zero {
            _ = try? poller.poll(timeout: Duration.minimum(remaining, .milliseconds(100)))
            try receiveAvailable()
        }
        try checkHealth()
    }

    /// Sends `operation` to every node and waits for every reply, read as a `Document`.
    func queryAll<Document: Decodable>(_ operation: ControlOperation, _ type: Document.Type) throws -> [Document] {
        let ids = try nodes.indices.map { try send($0, operation) }
        while true {
            if nodes.indices.allSatisfy({ replies[$0][ids[$0]] != nil }) { break }
            try pumpOnce(until: clock.now.advanced(by: .milliseconds(20)))
        }
        return try nodes.indices.map { n in
            try replies[n].removeValue(forKey: ids[n])!.result(type).mapError { NodeRequestError(node: nodes[n], $0) }.get()
        }
    }

    /// The reply to `id` from node `n`, taken out, as a `Document` (nil when it carries none).
    private func take<Document: Decodable>(_ n: Int, _ id: JSONValue, _ type: Document.Type) -> Document? {
        try? replies[n].removeValue(forKey: id)?.result(type).get()
    }

    /// Waits until every dispatch sent so far has its reply.
    func drainDispatches() throws {
        while dispatchesInFlight.contains(where: { $0 > 0 }) {
            try pumpOnce(until: clock.now.advanced(by: .milliseconds(20)))
        }
    }

    /// Sends one action per (node, action), pipelined within the window.
    private func dispatchAll(_ actions: [(node: Int, action: JSONValue)], change: Bool = false) throws {
        for item in actions {
            while dispatchesInFlight[item.node] >= settings.inFlight {
                try pumpOnce(until: clock.now.advanced(by: .milliseconds(20)))
            }
            try send(item.node, .dispatch, action: item.action, change: change)
        }
        try drainDispatches()
    }

    // MARK: actions

    static func follow(_ name: String, _ topic: String, from peer: String?) -> JSONValue {
        ActionObject.follow(name: name, topic: topic, from: peer)
    }

    static func set(_ topic: String, _ value: String) -> JSONValue {
        ActionObject.set(topic: topic, value: value)
    }

    private func feedActions() -> [(node: Int, action: JSONValue)] {
        feedCounter += 1
        var actions: [(Int, JSONValue)] = []
        for (n, node) in nodes.enumerated() {
            for k in 0..<settings.feeds {
                actions.append((n, ChurnDriver.set(ChurnDriver.feedTopic(node: node.id, k), String(feedCounter))))
            }
        }
        return actions
    }

    // MARK: keep inspection

    /// Counts of one keep reply.
    struct KeepCounts {
        var live = 0
        var settling = 0
        var churnFollows = 0
        var liveFeeds = 0
        var opens = 0
        var cancels = 0
    }

    static func counts(_ keep: KeepDocument?) -> KeepCounts {
        var counts = KeepCounts()
        for channel in keep?.channels ?? [] {
            switch channel.status {
            case .live:
                counts.live += 1
                if channel.id.hasPrefix("feed[churn.") { counts.liveFeeds += 1 }
            case .settling: counts.settling += 1
            }
            if channel.id.hasPrefix(followPrefix) { counts.churnFollows += 1 }
        }
        // Counters beyond what JSON carries exactly read as absent (Formatting.exact): the
        // differences below can then never overflow.
        counts.opens = keep.flatMap { Formatting.exact($0.counters.opens) } ?? 0
        counts.cancels = keep.flatMap { Formatting.exact($0.counters.cancels) } ?? 0
        return counts
    }

    /// The sum of `values`, or nil when one of them or the sum is not exact in JSON.
    static func exactSum(_ values: some Sequence<Int>) -> Int? {
        var sum = 0
        for value in values {
            guard let exact = Formatting.exact(value), let next = Formatting.exact(sum + exact) else { return nil }
            sum = next
        }
        return sum
    }

    /// Checks the leak invariants of one node at one sample; returns the violations.
    func check(node n: Int, sample: String, metrics: MetricsDocument?, keep: KeepDocument?) -> (ChurnNodeSample, [ChurnViolation]) {
        let counts = ChurnDriver.counts(keep)
        var violations: [ChurnViolation] = []
        if counts.opens - counts.cancels != counts.live {
            violations.append(
                ChurnViolation(
                    node: nodes[n].id, sample: sample,
                    message:
                        "keep counters opens \(counts.opens) − cancels \(counts.cancels) = \(counts.opens - counts.cancels), "
                        + "but the keep set has \(counts.live) live channels"))
        }
        // The metrics' `live` is the engine's opens − cancels; its kinds are counted apart, per
        // class, so a channel of no kind or a kind's count that missed an open or a cancel shows.
        let channels = metrics?.channels
        if let live = channels.flatMap({ Formatting.exact($0.live) }), let byKind = channels?.liveByKind,
            let sum = ChurnDriver.exactSum(byKind.values), sum != live
        {
            violations.append(
                ChurnViolation(
                    node: nodes[n].id, sample: sample,
                    message: "metrics channels.liveByKind sums to \(sum), but channels.live is \(live)"))
        }
        let sampleValue = ChurnNodeSample(
            live: counts.live, settling: counts.settling, churnFollows: counts.churnFollows,
            opens: counts.opens, cancels: counts.cancels,
            depth: metrics.flatMap { Formatting.exact($0.mailbox.depth) } ?? 0,
            fds: metrics.flatMap { Formatting.exact($0.process.fds) } ?? 0,
            socketsOpen: metrics.flatMap { Formatting.exact($0.sockets.open) } ?? 0)
        return (sampleValue, violations)
    }

    // MARK: the run

    func run() throws -> ChurnRunResult {
        var violations: [ChurnViolation] = []
        func record(_ found: [ChurnViolation]) {
            for violation in found { reportViolation(violation) }
            violations += found
        }
        let n = nodes.count

        // 1. Feeds exist and are live; no churn follow is left from an earlier run.
        // A warm-up round first, so resources a node creates once, lazily, on first use (a
        // timerfd for settling follows) are in the baseline and not counted as leaks.
        try dispatchAll(feedActions())
        let warmTopics = nodes.indices.map { topics(for: $0) }
        for round in 0..<2 {
            try dispatchAll(
                nodes.indices.map { node in
                    let (topic, peer) = warmTopics[node][round % warmTopics[node].count]
                    return (node, ChurnDriver.follow(ChurnDriver.followName(0), topic, from: settings.fromPeers ? peer : nil))
                })
            Pause.sleep(.milliseconds(150))
            try dispatchAll(feedActions())
        }
        try dispatchAll(nodes.indices.map { ($0, ActionObject.unfollow(name: ChurnDriver.followName(0))) })
        let setupDeadline = clock.now.advanced(by: settings.drainTimeout)
        var ready = false
        while !ready {
            let keeps = try queryAll(.keep, KeepDocument.self)
            ready = keeps.allSatisfy { keep in
                let counts = ChurnDriver.counts(keep)
                return counts.liveFeeds == settings.feeds && counts.churnFollows == 0 && counts.settling == 0
            }
            if !ready {
                if clock.now >= setupDeadline {
                    throw CommandFailure(
                        .failure,
                        "the feeds did not become live (or churn follows of an earlier run did not go away) "
                            + "within \(DurationParser.format(settings.drainTimeout))")
                }
                Pause.sleep(.milliseconds(100))
            }
        }
        let before = try queryAll(.metrics, MetricsDocument.self)

        // 2. The follows: F per node, each on one of the other nodes' feeds.
        let topicLists = nodes.indices.map { topics(for: $0) }
        var current = Array(repeating: [Int](), count: n)
        var creates: [(node: Int, action: JSONValue)] = []
        for node in 0..<n {
            for i in 0..<settings.follows {
                let choice = i % topicLists[node].count
                current[node].append(choice)
                let (topic, peer) = topicLists[node][choice]
                creates.append((node, ChurnDriver.follow(ChurnDriver.followName(i), topic, from: settings.fromPeers ? peer : nil)))
            }
        }
        try dispatchAll(creates)

        // 3. Churn on a deadline schedule, feeds every 100 ms, a sample every 500 ms.
        acknowledgedChanges = Array(repeating: 0, count: n)
        // At most 1e6/s × 1h (NumericOption.rateRange, LoadCommand.durationRange): fits an Int.
        let total = Int((settings.rate * settings.duration.seconds).rounded())
        let interval = 1.0 / settings.rate
        var nextFollow = Array(repeating: 0, count: n)
        var sent = 0
        let start = clock.now
        let end = start.advanced(by: settings.duration)
        var nextFeed = start.advanced(by: settings.feedInterval)
        var nextSample = start.advanced(by: settings.sampleInterval)
        var samples: [ChurnSample] = []
        var outstanding: (ids: [(metrics: JSONValue, keep: JSONValue)], at: ContinuousClock.Instant)?
        var lastSample = (elapsed: 0.0, changes: 0)
        var maxDepth = Array(repeating: 0, count: n)
        var endMetrics: [MetricsDocument] = []
        func due(_ k: Int) -> ContinuousClock.Instant { start.advanced(by: .seconds(Double(k) * interval)) }

        func completeSample() {
            guard let current = outstanding,
                nodes.indices.allSatisfy({ replies[$0][current.ids[$0].metrics] != nil && replies[$0][current.ids[$0].keep] != nil })
            else { return }
            outstanding = nil
            let index = samples.count + 1
            let elapsed = start.duration(to: current.at).seconds
            var nodeSamples: [ChurnNodeSample] = []
            for node in 0..<n {
                let metrics = take(node, current.ids[node].metrics, MetricsDocument.self)
                let keep = take(node, current.ids[node].keep, KeepDocument.self)
                let label = "sample \(index) (t=\(Formatting.threeDecimals(elapsed))s)"
                let (value, found) = check(node: node, sample: label, metrics: metrics, keep: keep)
                record(found)
                maxDepth[node] = max(maxDepth[node], value.depth)
                nodeSamples.append(value)
            }
            let changes = acknowledgedChanges.reduce(0, +)
            let rate = elapsed > lastSample.elapsed ? Double(changes - lastSample.changes) / (elapsed - lastSample.elapsed) : 0
            lastSample = (elapsed, changes)
            let sample = ChurnSample(index: index, elapsed: elapsed, rate: rate, nodes: nodeSamples)
            samples.append(sample)
            progress.escapedLine(ChurnReport.progressLine(sample, nodeIDs: nodes.map(\.id)))
        }

        while true {
            let now = clock.now
            if now >= end { break }
            while sent < total, due(sent) <= now, dispatchesInFlight[sent % n] < settings.inFlight {
                let node = sent % n
                let i = nextFollow[node]
                nextFollow[node] = (i + 1) % settings.follows
                let choice = (current[node][i] + 1) % topicLists[node].count
                current[node][i] = choice
                let (topic, peer) = topicLists[node][choice]
                try send(
                    node, .dispatch, action: ChurnDriver.follow(ChurnDriver.followName(i), topic, from: settings.fromPeers ? peer : nil),
                    change: true)
                sent += 1
            }
            if now >= nextFeed {
                for item in feedActions() { try send(item.node, .dispatch, action: item.action) }
                nextFeed = nextFeed.advanced(by: settings.feedInterval)
                if nextFeed < now { nextFeed = now.advanced(by: settings.feedInterval) }
            }
            if now >= nextSample {
                if outstanding == nil {
                    let ids = try nodes.indices.map { (metrics: try send($0, .metrics), keep: try send($0, .keep)) }
                    outstanding = (ids, now)
                }
                nextSample = nextSample.advanced(by: settings.sampleInterval)
                if nextSample < now { nextSample = now.advanced(by: settings.sampleInterval) }
            }
            completeSample()
            var wake = Swift.min(nextFeed, nextSample, end)
            if sent < total, dispatchesInFlight[sent % n] < settings.inFlight { wake = Swift.min(wake, due(sent)) }
            try pumpOnce(until: wake)
        }
        let elapsed = start.duration(to: clock.now).seconds
        let changes = acknowledgedChanges
        try drainDispatches()
        while outstanding != nil {
            completeSample()
            if outstanding != nil { try pumpOnce(until: clock.now.advanced(by: .milliseconds(20))) }
        }
        endMetrics = try queryAll(.metrics, MetricsDocument.self)
        let beforeCleanup = samples.count

        // 4. Unfollow everything; the keep sets must show no churn follow in time.
        var unfollows: [(node: Int, action: JSONValue)] = []
        for node in 0..<n {
            for i in 0..<settings.follows { unfollows.append((node, ActionObject.unfollow(name: ChurnDriver.followName(i)))) }
        }
        try dispatchAll(unfollows)
        let drainDeadline = clock.now.advanced(by: settings.drainTimeout)
        var gone = false
        var index = beforeCleanup
        var leftover: [Int] = []
        while !gone {
            let metrics = try queryAll(.metrics, MetricsDocument.self)
            let keeps = try queryAll(.keep, KeepDocument.self)
            index += 1
            leftover = keeps.map { ChurnDriver.counts($0).churnFollows }
            for node in 0..<n {
                record(check(node: node, sample: "cleanup sample \(index)", metrics: metrics[node], keep: keeps[node]).1)
            }
            gone = leftover.allSatisfy { $0 == 0 }
            if !gone {
                if clock.now >= drainDeadline { break }
                Pause.sleep(.milliseconds(100))
            }
        }
        if !gone {
            for node in 0..<n where leftover[node] > 0 {
                record([
                    ChurnViolation(
                        node: nodes[node].id, sample: "cleanup",
                        message: "\(leftover[node]) churn follows still in the keep set "
                            + "\(DurationParser.format(settings.drainTimeout)) after unfollowing them")
                ])
            }
        }

        // 5. fds, open sockets and live channels return to where they started.
        let settleDeadline = clock.now.advanced(by: settings.settleTimeout)
        var after: [MetricsDocument] = []
        var differences: [[String]] = []
        while true {
            after = try queryAll(.metrics, MetricsDocument.self)
            differences = nodes.indices.map { ChurnDriver.differences(before: before[$0], after: after[$0]) }
            if differences.allSatisfy(\.isEmpty) || clock.now >= settleDeadline { break }
            Pause.sleep(.milliseconds(100))
        }
        for node in 0..<n where !differences[node].isEmpty {
            record([
                ChurnViolation(
                    node: nodes[node].id, sample: "after the run (waited \(DurationParser.format(settings.settleTimeout)))",
                    message: differences[node].joined(separator: ", "))
            ])
        }

        return ChurnRunResult(
            settings: settings, nodeIDs: nodes.map(\.id), elapsed: elapsed, changes: changes,
            scheduled: total, before: before, after: after, end: endMetrics, samples: samples,
            maxSampledDepth: maxDepth, violations: violations)
    }

    /// What has not returned to its starting value, as "fds 31 → 33".
    static func differences(before: MetricsDocument?, after: MetricsDocument?) -> [String] {
        let watched: [(label: String, value: (MetricsDocument) -> Int)] = [
            ("process.fds", \.process.fds), ("sockets.open", \.sockets.open), ("channels.live", \.channels.live),
        ]
        var found: [String] = []
        for item in watched {
            let old = before.flatMap { Formatting.exact(item.value($0)) }
            let new = after.flatMap { Formatting.exact(item.value($0)) }
            if old != new {
                found.append("\(item.label) started at \(old.map(String.init) ?? "-") but is \(new.map(String.init) ?? "-")")
            }
        }
        return found
    }

    /// Unsets the feeds the runs created (best effort, at the very end).
    func removeFeeds() throws {
        var actions: [(node: Int, action: JSONValue)] = []
        for (n, node) in nodes.enumerated() {
            for k in 0..<settings.feeds { actions.append((n, ActionObject.unset(topic: ChurnDriver.feedTopic(node: node.id, k)))) }
        }
        try dispatchAll(actions)
    }
}
