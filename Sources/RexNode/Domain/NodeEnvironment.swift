import RexControl
/// What the node's behavior needs from the outside: its sockets (reactor-bound), its reactor,
/// its settings and start time, and a logger.
///
/// A class: the store hands the environment to every `produce` call, and a copy is then one
/// retain rather than one per field.
public final class NodeEnvironment: Sendable {
    let io: ReactorBound<NodeIO>
    let settings: NodeSettings
    let startedAt: ContinuousClock.Instant
    public let log: NodeLogger

    init(io: ReactorBound<NodeIO>, settings: NodeSettings, startedAt: ContinuousClock.Instant, log: NodeLogger) {
        self.io = io
        self.settings = settings
        self.startedAt = startedAt
        self.log = log
    }

    var reactor: Reactor { io.reactor }

    /// Milliseconds since the node started.
    var nowMs: Int {
        let elapsed = ContinuousClock.now - startedAt
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// A one-off message for the publisher channel (`Effect.broadcast` into `pub`).
struct Outgoing: Sendable {
    let topic: String
    let value: String
}
