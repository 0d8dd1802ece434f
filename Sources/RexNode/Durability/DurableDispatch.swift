import RexCluster
import RexControl
import SQLite
import SwiftRex

/// The control endpoint's path for operator actions on a node with a data directory: admit,
/// journal, then apply and answer — in `batch` mode only after the commit.
///
/// On the reactor thread only. Actions admitted during a turn of the reactor are handed to the
/// journal writer at the turn's end (a turn drains up to 256 requests per socket read), so a
/// pipelined client's actions share commits; the writer's answer comes back as a reactor job
/// that dispatches the committed actions into the store, in order, and sends their replies.
/// The store never holds an action that is not (being) written, and in `batch` mode never one
/// that is not committed: what followers see was durable first.
final class DurableDispatch<Feature: ClusterFeature> {
    /// One admitted action waiting for its commit, and where its answer goes.
    struct Waiting {
        let action: Feature.Action
        /// The action object the reply echoes.
        let echo: JSONValue
        let envelope: [[UInt8]]
        let id: JSONValue
    }

    let mode: DurabilityMode
    /// What recovery found at start (for the metrics).
    let recovery: RecoveryReport
    private let writer: any JournalSink<Feature.Action>
    private let store: Store<Feature.Action, Feature.State, Feature.Environment>
    private let reactor: Reactor
    private let limits: NodeLimits
    private let nodeID: String
    private let maxPending: Int
    private let maxPendingBytes: Int
    private var ledger: AdmissionLedger<Feature.Action, Feature.State>
    private let catalog = Feature.operatorActions
    /// Admitted this turn, not yet handed to the writer.
    private var unsent: [Feature.Action] = []
    /// Waiting for their commit (batch mode) or the turn's end (none), oldest first.
    private var waiting: [Waiting] = []
    private var waitingStart = 0
    /// Actions submitted to the writer and not yet reported on (both modes), and their bytes.
    private var inFlight = 0
    private var inFlightBytes = 0
    /// The bytes of each action handed to the writer and not reported on, oldest first, by
    /// submission (one entry per flush: count and bytes).
    private var flushed: [(count: Int, bytes: Int)] = []
    private var flushedStart = 0
    private var unsentBytes = 0
    private var failure: SQLiteError?
    private var hook: TurnEndToken?
    /// Sends a reply; set by the control service.
    var answer: (_ envelope: [[UInt8]], _ id: JSONValue, _ action: JSONValue) -> Void = { _, _, _ in }
    var refuse: (_ envelope: [[UInt8]], _ id: JSONValue, _ error: ControlError) -> Void = { _, _, _ in }

    init(
        writer: any JournalSink<Feature.Action>, mode: DurabilityMode, store: Store<Feature.Action, Feature.State, Feature.Environment>,
        reactor: Reactor, limits: NodeLimits, maxPending: Int, maxPendingBytes: Int, nodeID: String,
        recovery: RecoveryReport = RecoveryReport()
    ) {
        self.maxPendingBytes = maxPendingBytes
        reactor.checkIsolated()
        self.writer = writer
        self.recovery = recovery
        self.mode = mode
        self.store = store
        self.reactor = reactor
        self.limits = limits
        self.nodeID = nodeID
        self.maxPending = maxPending
        self.ledger = AdmissionLedger(store.state, catalog: Feature.operatorActions)
        hook = reactor.addTurnEndHook { [unowned self] in flush() }
    }

    /// Admits `action` and queues it for the journal; it is applied and answered after its
    /// commit (`batch`) or at the end of this reactor turn (`none`).
    ///
    /// - Throws: `limitReached` past a feed, follow or peer limit, or while `maxPending`
    ///   actions (or `maxPendingBytes`) wait for the journal; `notDurable` once the journal has
    ///   failed (fail-stop: from then on every operator action is refused, until a restart).
    func submit(_ action: Feature.Action, _ echo: JSONValue, envelope: [[UInt8]], id: JSONValue) throws(ControlError) {
        if let failure {
            throw ControlError(
                .notDurable,
                "node \(nodeID) cannot write its journal (\(failure)); it takes no more operator actions "
                    + "until it is restarted (free the disk or fix the data directory first)")
        }
        guard inFlight + unsent.count < maxPending, inFlightBytes + unsentBytes < maxPendingBytes else {
            throw ControlError(
                .limitReached,
                "node \(nodeID) has \(inFlight + unsent.count) actions "
                    + "(\(inFlightBytes + unsentBytes) bytes) waiting for its journal; retry shortly")
        }
        ledger.countKeysFromElsewhere(for: action, in: store.state)
        try ledger.admit(action, limits: limits, node: nodeID)
        unsent.append(action)
        unsentBytes += Self.bytes(of: action, catalog: catalog)
        // In both modes the action waits in `waiting`: for its commit (batch), or for the end of
        // this reactor turn (none), where the turn's actions go into the store and their answers
        // out together — measured cheaper than interleaving a dispatch and a reply with every
        // request's parsing, and the same turn, so no later.
        waiting.append(Waiting(action: action, echo: echo, envelope: envelope, id: id))
    }

    /// Hands this turn's actions to the writer (the reactor's turn-end hook).
    private func flush() {
        guard !unsent.isEmpty else { return }
        if mode == .none {
            for entry in waiting { store.dispatch(entry.action) }
            for entry in waiting { answer(entry.envelope, entry.id, entry.echo) }
            waiting.removeAll(keepingCapacity: true)
        }
        inFlight += unsent.count
        inFlightBytes += unsentBytes
        flushed.append((unsent.count, unsentBytes))
        writer.submit(unsent)
        unsent.removeAll(keepingCapacity: true)
        unsentBytes = 0
    }

    /// Roughly what an action holds in memory while it waits: its strings.
    private static func bytes(of action: Feature.Action, catalog: OperatorActionCatalog<Feature.Action, Feature.State>) -> Int {
        let values = catalog.describe(action)?.values ?? []
        return values.reduce(64) { $0 + ($1?.utf8.count ?? 0) }
    }

    /// Releases the byte count of the next `count` reported actions (reports cover whole flushes:
    /// the writer takes everything queued, which is a run of whole flushes).
    private func release(_ count: Int) {
        var left = count
        while left > 0, flushedStart < flushed.count {
            let entry = flushed[flushedStart]
            left -= entry.count
            inFlightBytes -= entry.bytes
            flushedStart += 1
        }
        if flushedStart == flushed.count {
            flushed.removeAll(keepingCapacity: true)
            flushedStart = 0
        } else if flushedStart > 1024, flushedStart * 2 > flushed.count {
            flushed.removeFirst(flushedStart)
            flushedStart = 0
        }
    }

    /// The writer's report, on the reactor: apply and answer what committed; refuse what did
    /// not (and take nothing more).
    func handle(_ outcome: JournalOutcome) {
        switch outcome {
        case .committed(let count):
            inFlight -= count
            release(count)
            guard mode == .batch else { return }
            let end = min(waitingStart + count, waiting.count)
            for index in waitingStart..<end {
                let entry = waiting[index]
                store.dispatch(entry.action)
                answer(entry.envelope, entry.id, entry.echo)
            }
            advance(to: end)
        case .failed(let count, let error):
            inFlight -= count
            release(count)
            failure = error
            guard mode == .batch else { return }
            let end = min(waitingStart + count, waiting.count)
            for index in waitingStart..<end {
                let entry = waiting[index]
                refuse(
                    entry.envelope, entry.id,
                    ControlError(
                        .notDurable,
                        "node \(nodeID) could not commit the action to its journal "
                            + "(\(error)); it was not applied, and the node takes no more operator actions until it is restarted"))
            }
            advance(to: end)
        }
    }

    /// Drops answered entries; the array is compacted once half of it is answered, so a
    /// steady load costs O(1) per action.
    private func advance(to end: Int) {
        waitingStart = end
        if waitingStart == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingStart = 0
        } else if waitingStart > 4096, waitingStart * 2 > waiting.count {
            waiting.removeFirst(waitingStart)
            waitingStart = 0
        }
    }

    /// Actions admitted and not yet reported on by the journal (both modes): what the
    /// `maxPending` cap counts.
    var pendingActions: Int { inFlight + unsent.count }

    /// Whether the journal has failed (every operator action is refused since).
    var hasFailed: Bool { failure != nil }

    /// What the journal has committed so far.
    var journalCounters: JournalCounters { writer.counters }

    /// On the reactor: sends what this turn admitted, and stops the turn-end hook.
    func stopAccepting() {
        flush()
        if let hook { reactor.removeTurnEndHook(hook) }
        hook = nil
    }
}
