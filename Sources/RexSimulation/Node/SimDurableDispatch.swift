import RexCluster
import RexControl
import SwiftRex

/// A simulated node's path for operator actions, as the runtime's durable dispatch takes it:
/// admit (the feature's ``AdmissionLedger``), append the action's record (the catalog's codec)
/// to the journal on the ``SimDisk``, and only once the fsync covering it completes, apply it to
/// the store and acknowledge it. Actions that arrive while an fsync runs share the next one
/// (group commit). A write that fails (a full disk) stops the node taking actions until it
/// restarts, as the runtime does.
final class SimDurableDispatch<Feature: ClusterFeature> {
    /// What became of a submitted action at once.
    enum Outcome: Equatable {
        /// Admitted and written; acknowledged after its fsync.
        case queued
        case refused(ControlError.Code)
    }

    private let store: Store<Feature.Action, Feature.State, Feature.Environment>
    private var ledger: AdmissionLedger<Feature.Action, Feature.State>
    private let disk: SimDisk
    private let log: DurabilityLog<Feature.Action>
    private let transport: SimTransport
    private let loop: SimLoop
    private let limits: NodeLimits
    private let nodeID: String
    private let maxPending: Int
    private var waiting: [Feature.Action] = []
    private var syncing = false
    private(set) var failure: String?

    init(
        store: Store<Feature.Action, Feature.State, Feature.Environment>, disk: SimDisk, log: DurabilityLog<Feature.Action>,
        transport: SimTransport, loop: SimLoop, limits: NodeLimits, nodeID: String, maxPending: Int = 1024
    ) {
        self.store = store
        self.disk = disk
        self.log = log
        self.transport = transport
        self.loop = loop
        self.limits = limits
        self.nodeID = nodeID
        self.maxPending = maxPending
        ledger = AdmissionLedger(store.state, catalog: Feature.operatorActions)
    }

    /// Admits and journals `action` (on the node's executor).
    func submit(_ action: Feature.Action) -> Outcome {
        guard failure == nil else { return .refused(.notDurable) }
        guard waiting.count < maxPending else { return .refused(.limitReached) }
        ledger.countKeysFromElsewhere(for: action, in: store.state)
        do {
            try ledger.admit(action, limits: limits, node: nodeID)
        } catch {
            return .refused(error.code)
        }
        if let frame = SimJournal.frame([action], catalog: Feature.operatorActions) {
            do {
                try disk.append(frame)
            } catch {
                failure = "\(error)"
                return .refused(.notDurable)
            }
            log.wrote(action)
        }
        waiting.append(action)
        if !syncing { startSync() }
        return .queued
    }

    private func startSync() {
        syncing = true
        let covering = disk.beginFsync()
        let count = waiting.count
        loop.at(loop.now + disk.fsyncLatency) { [weak self, transport, disk] in
            guard transport.alive else { return }
            disk.completeFsync(covering: covering)
            transport.onExecutor { self?.committed(count) }
        }
    }

    /// The fsync covering the first `count` waiting actions completed: apply and acknowledge.
    private func committed(_ count: Int) {
        let journaled = waiting.prefix(count).filter { Feature.operatorActions.isJournaled($0) }.count
        for action in waiting.prefix(count) { store.dispatch(action) }
        log.acknowledge(journaled)
        waiting.removeFirst(count)
        syncing = false
        if !waiting.isEmpty { startSync() }
    }
}
