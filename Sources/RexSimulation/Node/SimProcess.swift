import RexCluster
import SwiftRex

/// One run of a node's process: its executor, its sockets, its store and its path for operator
/// actions. Killed, it stops touching the world at once; its store then winds down on its
/// executor (a zombie the loop still runs, with nothing left to reach).
final class SimProcess<Feature: SimulatedFeature> {
    let executor: SimExecutor
    let transport: SimTransport
    let store: Store<Feature.Action, Feature.State, Feature.Environment>
    let dispatch: SimDurableDispatch<Feature>
    /// What the journal recovered as it started.
    let recoveredActions: Int
    let discardedBytes: Int

    init(
        executor: SimExecutor, transport: SimTransport, store: Store<Feature.Action, Feature.State, Feature.Environment>,
        dispatch: SimDurableDispatch<Feature>, recoveredActions: Int, discardedBytes: Int
    ) {
        self.executor = executor
        self.transport = transport
        self.store = store
        self.dispatch = dispatch
        self.recoveredActions = recoveredActions
        self.discardedBytes = discardedBytes
    }

    /// `kill -9`: no more sends, receives or timers; the store is left to wind down.
    func kill() {
        transport.kill()
        executor.isZombie = true
    }
}
