import RexCluster
import RexControl
import SwiftRex
import Synchronization

/// A node's durability, from start to stop: the journal writer with what it recovered, and the
/// reactor-side dispatch the control endpoint sends operator actions through.
final class DurableRuntime<Feature: ClusterFeature>: Sendable {
    let options: DurableOptions
    let writer: JournalWriter<Feature>
    /// The state recovered from the snapshot and journal, before the control endpoint opens.
    let recovered: OperatorActionFold<Feature.Action, Feature.State>
    let report: RecoveryReport
    private let target: Target

    /// Where the writer's reports go: the dispatch, once it exists, on its reactor.
    private final class Target: Sendable {
        let dispatch = Mutex<ReactorBound<DurableDispatch<Feature>>?>(nil)
    }

    private init(
        options: DurableOptions, writer: JournalWriter<Feature>, recovered: OperatorActionFold<Feature.Action, Feature.State>,
        report: RecoveryReport, target: Target
    ) {
        self.options = options
        self.writer = writer
        self.recovered = recovered
        self.report = report
        self.target = target
    }

    /// Opens and recovers the data directory (on the journal's own thread; this waits for it).
    static func open(_ options: DurableOptions, reactor: Reactor, log: NodeLogger) throws(DurableStateError) -> DurableRuntime {
        let target = Target()
        let (writer, state, report) = try JournalWriter<Feature>.start(options: options, log: log) { outcome in
            reactor.execute { target.dispatch.withLock { $0 }?.value.handle(outcome) }
        }
        return DurableRuntime(options: options, writer: writer, recovered: state, report: report, target: target)
    }

    /// The dispatch for `store` (on the reactor thread).
    func makeDispatch(
        store: Store<Feature.Action, Feature.State, Feature.Environment>, reactor: Reactor, limits: NodeLimits, nodeID: String
    ) -> DurableDispatch<Feature> {
        let dispatch = DurableDispatch<Feature>(
            writer: writer, mode: options.mode, store: store, reactor: reactor, limits: limits, maxPending: options.maxPendingActions,
            maxPendingBytes: options.maxPendingBytes, nodeID: nodeID, recovery: report)
        target.dispatch.withLock { $0 = ReactorBound(dispatch, on: reactor) }
        return dispatch
    }

    /// On the reactor: no more actions; hands on what this turn admitted.
    func stopAccepting() {
        target.dispatch.withLock { $0 }?.value.stopAccepting()
    }

    /// Off the reactor: waits for the last commit and closes the database.
    func close() {
        writer.close()
    }
}
