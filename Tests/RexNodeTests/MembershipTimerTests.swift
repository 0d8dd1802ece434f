import RexControl
import RexMembership
import SwiftRexTesting
import Synchronization
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// Where the membership's timer runs: on the transport's own timer when it has one (the reactor,
/// in a running node), so a tick runs the machine directly — no task on the cooperative pool and
/// no `membershipTimer` action through the store.
@Suite struct MembershipTimerTests {
    struct Armed: Sendable {
        let delay: Duration
        let fire: @Sendable () -> Void
    }

    @Test func aTransportTimerTicksTheMachineWithoutAStoreCycle() throws {
        let clock = TestClock()
        let armed = Mutex<[Armed]>([])
        let sent = Mutex<[String]>([])
        let actions = Mutex<[NodeAction]>([])
        var transport = InMemoryTransport().transport
        transport.membershipSend = { _, endpoint, _ in sent.withLock { $0.append(endpoint) } }
        transport.membershipArm = { delay, fire in armed.withLock { $0.append(Armed(delay: delay, fire: fire)) } }
        let n1 = MemberAddress(membership: "tcp://127.0.0.1:7311", pub: "tcp://127.0.0.1:7111")
        let n2 = MemberAddress(membership: "tcp://127.0.0.1:7312", pub: "tcp://127.0.0.1:7112")
        let plan = MembershipPlan(address: n1, incarnation: 0, seed: 3, members: ["n2": n2])
        let env = ClusterEnvironment(
            transport: transport, settings: NodeSettings(), clock: clock, log: NodeLogger(nodeID: "n1", level: .error, sink: { _ in }),
            membership: plan
        )
        let requestTick: @Sendable () -> Void = { actions.withLock { $0.append(.membershipTimer) } }
        let report: @Sendable (MemberReport) -> Void = { _ in }
        let host = try #require(MembershipHost(plan, id: "n1", env: env, report: report, requestTick: requestTick))
        host.start(members: plan.members, seeds: [])
        // The first tick picks a random phase within one period and arms the transport's timer for it.
        let first = try #require(armed.withLock { $0.last })
        #expect(first.delay <= plan.settings.protocolPeriod)
        // Each firing ticks the machine: over a few periods n2 is probed every period.
        for _ in 0..<30 {
            // The transport keeps one timer: a later arm replaces the earlier ones.
            guard
                let next = armed.withLock({ armed -> Armed? in
                    defer { armed.removeAll() }
                    return armed.last
                })
            else { break }
            clock.advance(by: next.delay)
            next.fire()
        }
        let probes = sent.withLock { $0.filter { $0 == n2.membership }.count }
        #expect(probes >= 3, "probes sent to n2: \(probes)")
        #expect(!actions.withLock { $0.contains(.membershipTimer) }, "a tick went through the store")
        host.stop()
    }
}
