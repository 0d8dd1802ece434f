/// Takes the actions effects and channels send back to a store, instead of the store's mailbox.
///
/// The seam the test kit plugs into: `TestStore` holds these actions for its `receive` rather
/// than letting the store process them. A store built through the public initialisers has none,
/// and its drain loop carries no trace of it; the only cost is one nil check of a constant per
/// action a run sends.
@usableFromInline
package protocol FeedbackInterceptor<Action>: Sendable {
    associatedtype Action: Sendable

    /// Called on whatever thread the run sent from; `liveness` tells whether that run is still
    /// the current one (an intercepted action of a torn-down run must be treated as dropped).
    func intercept(_ action: DispatchedAction<Action>, liveness: RunLiveness)
}

/// Whether the run (a one-shot effect or a channel instance) that sent an action is still live.
@usableFromInline
package struct RunLiveness: Sendable {
    @usableFromInline let liveness: Liveness

    @inlinable init(_ liveness: Liveness) { self.liveness = liveness }

    /// False once the run was torn down or replaced: what it sent no longer counts.
    package var isAlive: Bool { liveness.isAlive }
}
