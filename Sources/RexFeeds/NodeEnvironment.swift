public import RexCluster
package import RexControl

/// What the node's behavior needs from the outside: the data plane (`NodeTransport`), the
/// store's clock, its settings and a logger. Nothing here is a socket: a test builds one from an
/// in-memory transport and a `TestClock`.
///
/// A class: the store hands the environment to every `produce` call, and a copy is then one
/// retain rather than one per field.
public final class NodeEnvironment: Sendable {
    let transport: NodeTransport
    let settings: NodeSettings
    /// The clock the store runs on (the membership's timer too, when the transport has none).
    let clock: any Clock<Duration>
    /// Time on `clock` since the node started.
    let elapsed: @Sendable () -> Duration
    public let log: NodeLogger
    /// The SWIM membership to run. A running `Node` always has one; nil: the store runs without
    /// any membership (an in-memory store in tests of the data plane alone).
    let membership: MembershipPlan?

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

    /// Milliseconds since the node started, on the store's clock.
    var nowMs: Int { Self.wholeMilliseconds(elapsed()) }

    static func wholeMilliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        let (total, carried) = Int(milliseconds).addingReportingOverflow(Int(attoseconds / 1_000_000_000_000_000))
        return overflow || carried ? Int.max : total
    }
}

/// A one-off message for the publisher channel (`Effect.broadcast` into `pub`).
package struct Outgoing: Sendable {
    let topic: String
    let value: String
}
