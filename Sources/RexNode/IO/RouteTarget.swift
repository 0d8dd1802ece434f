import RexCluster

/// Where the messages of one route go: collects those one read of a socket brings, then hands
/// them on as one batch (see `NodeAction.received`). Lives on the reactor thread.
final class RouteTarget {
    private let deliver: ([Received]) -> Void
    /// Messages of the current read, oldest first.
    // Unchecked exclusivity: appended to per received message on the reactor thread, and taken
    // whole in `handOn` before `deliver` runs; no access is open while other code runs.
    @exclusivity(unchecked) var pending: [Received] = []

    init(_ deliver: @escaping ([Received]) -> Void) {
        self.deliver = deliver
    }

    /// Delivers what is pending and starts over.
    func handOn() {
        guard !pending.isEmpty else { return }
        let batch = pending
        pending = []
        deliver(batch)
    }
}
