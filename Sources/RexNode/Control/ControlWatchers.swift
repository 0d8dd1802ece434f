import Dispatch
import RexCluster
import RexControl
import SwiftRex
import ZMQ

/// The `watch`, `renew` and `unwatch` ops: streams keep-set and state changes to clients, on
/// the reactor thread, around the pure ``WatchTable``.
///
/// How a change reaches a watcher:
/// 1. The store's observer (after every batch that ran a reducer) marks the state and the
///    keep set dirty. While a watched keep set has settling channels, every tick marks it
///    dirty too (a settle ends without a batch), and once a second anyway.
/// 2. A tick (every ``WatchPolicy/pushIntervalMs`` while anyone watches) starts a round when
///    something watched is dirty and no round is running: the state is read on the reactor
///    (one retain), the keep set awaited from the store, and both compared with the round
///    before and encoded on the watchers' own queue — once, whatever the number of watchers.
///    Neither the ticks nor the rounds use Swift's cooperative pool: blocking work elsewhere
///    in the process (a test's blocking sockets, a disk) can hold all of its threads, and a
///    watch must keep its pace regardless.
/// 3. Back on the reactor, each due watcher gets one push with the documents that changed,
///    assembled from the shared bytes (``WatchPush``), sent without blocking. A client whose
///    queue is full, or who is gone (the ROUTER is in mandatory mode, so sends to it fail), is
///    dropped; so is one whose push would exceed `maxReplyBytes` (after an error reply).
///    Pushes sent in one tick stop at ``bytesPerTick``; the rest go next tick.
/// 4. Leases: a watch lives `leaseMs` past its last `renew`, then ends silently.
final class ControlWatchers<Feature: ClusterFeature> {
    /// The most push bytes sent in one tick, so that large documents to many watchers never
    /// hold the reactor for long; the remaining watchers get theirs at the next tick.
    static var bytesPerTick: Int { 16 << 20 }
    /// How often a watched keep set is rebuilt though nothing dirtied it (supervision restarts,
    /// counters that move without a batch).
    static var keepRefresh: Duration { .seconds(1) }

    private let store: Store<Feature.Action, Feature.State, Feature.Environment>
    private let bound: ReactorBound<ControlService<Feature>>
    private let uptimeMs: @Sendable () -> Int
    private let maxReplyBytes: Int
    private let log: NodeLogger
    private let send: (_ envelope: [[UInt8]], _ payload: [UInt8]) -> Bool

    private var table = WatchTable()
    private var observation: SubscriptionToken?
    /// Ticks every push interval while anyone watches: a Dispatch timer on a queue of its own
    /// that hands each tick to the reactor (the reactor has no timers of its own). A late tick
    /// is not repeated: Dispatch coalesces the fires it missed.
    private var ticker: (any DispatchSourceTimer)?
    private let tickQueue: DispatchQueue
    /// Where rounds run between their reads on the reactor: comparing and encoding documents.
    private let rounds: DispatchQueueExecutor
    private var stateDirty = false
    private var keepDirty = false
    private var building = false
    private var lastKeepBuildAt: ContinuousClock.Instant?
    /// The last round's documents: their bytes for pushes, their values to compare the next
    /// round with, and whether the keep set had settling channels.
    private var latest = Documents()

    struct Documents: Sendable {
        var keep: (document: KeepDocument, encoded: WatchPush.Encoded)?
        var state: (document: Feature.State, encoded: WatchPush.Encoded)?
        var keepSettling = false
    }

    /// - Parameter send: sends one reply without blocking; false when the client is gone or
    ///   its queue is full.
    init(
        store: Store<Feature.Action, Feature.State, Feature.Environment>, bound: ReactorBound<ControlService<Feature>>,
        uptimeMs: @escaping @Sendable () -> Int,
        maxReplyBytes: Int, log: NodeLogger, send: @escaping (_ envelope: [[UInt8]], _ payload: [UInt8]) -> Bool
    ) {
        self.store = store
        self.bound = bound
        self.uptimeMs = uptimeMs
        self.maxReplyBytes = maxReplyBytes
        self.log = log
        self.send = send
        tickQueue = DispatchQueue(label: "rexnode-watch-ticks")
        rounds = DispatchQueueExecutor(label: "rexnode-watch-rounds")
    }

    // MARK: ops

    /// `watch`: registers the watcher; its first push follows the next round.
    func watch(envelope: [[UInt8]], id: JSONValue, documents: [WatchedDocument], leaseMs: Int) throws(ControlError) {
        try table.watch(.init(envelope: envelope, id: id), documents: documents, leaseMs: leaseMs, now: .now)
        log.debug("watch_started", ["documents": documents.map(\.rawValue).joined(separator: ","), "watchers": "\(table.watchers.count)"])
        startObserving()
        tick()
    }

    func renew(envelope: [[UInt8]], id: JSONValue?) -> RenewDocument {
        RenewDocument(renewed: table.renew(envelope: envelope, id: id, now: .now))
    }

    func unwatch(envelope: [[UInt8]], id: JSONValue?) -> UnwatchDocument {
        defer { stopObservingIfIdle() }
        return UnwatchDocument(unwatched: table.unwatch(envelope: envelope, id: id))
    }

    /// Ends every watch (the node is stopping).
    func close() {
        table = WatchTable()
        stopObservingIfIdle()
    }

    /// How many watches are open.
    var count: Int { table.watchers.count }

    // MARK: rounds

    private func startObserving() {
        guard observation == nil else { return }
        let bound = self.bound
        // Called on the store's executor (the reactor) after each batch; the flags are set on
        // the next turn, outside the store's own processing.
        observation = store.observe { _ in
            bound.reactor.execute { bound.value.watchers?.stateChanged() }
        }
        stateDirty = true
        keepDirty = true
        let timer = DispatchSource.makeTimerSource(queue: tickQueue)
        let interval = DispatchTimeInterval.milliseconds(WatchPolicy.pushIntervalMs)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(1))
        timer.setEventHandler { bound.reactor.execute { bound.value.watchers?.tick() } }
        timer.resume()
        ticker = timer
    }

    private func stopObservingIfIdle() {
        guard table.isEmpty else { return }
        observation?.cancel()
        observation = nil
        ticker?.cancel()
        ticker = nil
        latest = Documents()
    }

    private func stateChanged() {
        stateDirty = true
        keepDirty = true
    }

    private func tick() {
        let now = ContinuousClock.now
        for key in table.expire(now: now) { log.debug("watch_expired", ["watchers": "\(table.watchers.count)", "id": "\(key.id)"]) }
        stopObservingIfIdle()
        guard !table.isEmpty else { return }
        sendDuePushes(now: now)
        let watched = table.watched
        if watched.contains(.keep), latest.keepSettling || lastKeepBuildAt.map({ now - $0 >= Self.keepRefresh }) ?? true {
            keepDirty = true
        }
        let wanted = watched.filter { ($0 == .keep && keepDirty) || ($0 == .state && stateDirty) }
        guard !building, !wanted.isEmpty || table.hasNewcomers else { return }
        startRound(of: watched, now: now)
    }

    /// Builds every watched document off the reactor (and off the cooperative pool), compares
    /// it with the last round's, and hands the result back to the reactor.
    private func startRound(of documents: Set<WatchedDocument>, now: ContinuousClock.Instant) {
        building = true
        stateDirty = false
        if documents.contains(.keep) {
            keepDirty = false
            lastKeepBuildAt = now
        }
        let round = table.startRound()
        let state = documents.contains(.state) ? store.state : nil
        let previous = latest
        let store = self.store
        let uptimeMs = self.uptimeMs
        let bound = self.bound
        Task(executorPreference: rounds) {
            var next = previous
            var changed: Set<WatchedDocument> = []
            if documents.contains(.keep) {
                let keep = KeepDocument(await store.keep(), nowMs: uptimeMs())
                if previous.keep.map({ $0.document.ignoringAges != keep.ignoringAges }) ?? true { changed.insert(.keep) }
                next.keep = (try? WatchPush.Encoded(keep)).map { (keep, $0) }
                next.keepSettling = keep.channels.contains { $0.status == .settling }
            } else {
                next.keep = nil
            }
            if let state {
                // Compared without a clock (the store's state has none); pushed with the node's
                // uptime as this round builds it.
                if previous.state.map({ $0.document != state }) ?? true { changed.insert(.state) }
                let stamped = Feature.stamped(state, nowMs: uptimeMs())
                next.state = (try? WatchPush.Encoded(stamped)).map { (state, $0) }
            } else {
                next.state = nil
            }
            let (result, differences) = (next, changed)
            bound.reactor.execute { bound.value.watchers?.finishRound(round, result, changed: differences) }
        }
    }

    private func finishRound(_ round: Int, _ documents: Documents, changed: Set<WatchedDocument>) {
        building = false
        guard !table.isEmpty else { return }
        latest = documents
        table.finishRound(round, changed: changed)
        sendDuePushes(now: .now)
    }

    /// Sends every due push, within ``bytesPerTick``.
    private func sendDuePushes(now: ContinuousClock.Instant) {
        var budget = Self.bytesPerTick
        for push in table.duePushes(now: now) where budget > 0 {
            let keep = push.documents.contains(.keep) ? latest.keep?.encoded : nil
            let state = push.documents.contains(.state) ? latest.state?.encoded : nil
            // A document that could not be encoded is never sent as missing: wait for a round that encodes it.
            guard (keep != nil) == push.documents.contains(.keep), (state != nil) == push.documents.contains(.state) else { continue }
            guard
                let bytes = try? WatchPush(id: push.key.id, sequence: push.sequence, leaseMs: push.leaseMs, keep: keep, state: state)
                    .bytes()
            else { continue }
            guard bytes.count <= maxReplyBytes else {
                let error = ControlError(
                    .tooLarge,
                    "the watch reply would have \(bytes.count) bytes; this node sends at most \(maxReplyBytes) (--max-reply-bytes); the watch ended"
                )
                _ = send(push.key.envelope, (try? ControlCodec.encode(ControlReply<JSONValue>.refusing(id: push.key.id, error))) ?? [])
                drop(push.key, reason: "tooLarge")
                continue
            }
            budget -= bytes.count
            if send(push.key.envelope, bytes) {
                table.pushed(push, now: now)
            } else {
                drop(push.key, reason: "cannot take more")
            }
        }
    }

    private func drop(_ key: WatchTable.Key, reason: String) {
        table.drop(key)
        log.warning("watch_dropped", ["reason": reason, "id": "\(key.id)", "watchers": "\(table.watchers.count)"])
        stopObservingIfIdle()
    }
}
