public import RexControl

/// What a feature on the cluster is given by the node it runs on: the data plane
/// (`NodeTransport`), the store's clock, the node's id, settings and logger, and the SWIM
/// membership to run. Nothing here is a socket: the runtime builds the live one; a test builds one
/// from an ``InMemoryTransport`` and a `TestClock`.
///
/// A feature does not call the transport: it declares ``ClusterChannels`` in its `supervise`,
/// built from this environment, and the store's engine opens and cancels them as its state
/// implies.
///
/// A class: the store hands the environment to every `produce` call, and a copy is then one
/// retain rather than one per field.
public final class ClusterEnvironment: Sendable {
    package let transport: NodeTransport
    /// The node's settings (limits, feed interval, follow settle).
    public let settings: NodeSettings
    /// The clock the store runs on (the membership's timer too, when the transport has none).
    package let clock: any Clock<Duration>
    /// Time on `clock` since the node started.
    package let elapsed: @Sendable () -> Duration
    /// The node's logger (its lines carry the node's id).
    public let log: NodeLogger
    /// The SWIM membership to run. A running node always has one; nil: the store runs without
    /// any membership (an in-memory store in tests of the data plane alone).
    package let membership: MembershipPlan?

    package init<C: Clock<Duration>>(
        transport: NodeTransport, settings: NodeSettings, clock: C, log: NodeLogger, membership: MembershipPlan? = nil
    ) {
        self.membership = membership
        self.transport = transport
        self.settings = settings
        self.clock = clock
        let origin = clock.now
        self.elapsed = { origin.duration(to: clock.now) }
        self.log = log
    }

    /// An environment over an in-memory network, for tests of a feature without sockets: what
    /// its channels ask of the network is recorded by `transport`, and messages are delivered
    /// to its follows by `transport.deliver(_:from:)`.
    public convenience init<C: Clock<Duration>>(
        nodeID: String, inMemory transport: InMemoryTransport, settings: NodeSettings = NodeSettings(), clock: C
    ) {
        self.init(
            transport: transport.transport, settings: settings, clock: clock, log: NodeLogger(nodeID: nodeID, level: .error, sink: { _ in })
        )
    }

    /// The id of the node the feature runs on.
    public var nodeID: String { log.nodeID }

    /// Milliseconds since the node started, on the store's clock.
    public var nowMs: Int { Self.wholeMilliseconds(elapsed()) }

    package static func wholeMilliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        let (total, carried) = Int(milliseconds).addingReportingOverflow(Int(attoseconds / 1_000_000_000_000_000))
        return overflow || carried ? Int.max : total
    }
}

/// A one-off message for the publisher channel (``ClusterChannels/publish(topic:value:)``).
@usableFromInline
package struct Outgoing: Sendable {
    package let topic: String
    package let value: String

    @usableFromInline
    package init(topic: String, value: String) {
        self.topic = topic
        self.value = value
    }
}
