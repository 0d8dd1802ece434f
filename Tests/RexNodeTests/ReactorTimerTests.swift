import Foundation
import NodeTestSupport
import SharedTestSupport
import Synchronization
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The reactor's own timers (what the membership's protocol timer runs on): they fire on the
/// reactor thread, not before their deadline, in deadline order, shorten an idle poll, and a
/// cancelled one never fires.
@Suite struct ReactorTimerTests {
    /// The idle poll of the reactors under test, far past `Arrivals.safetyTimeout`: nothing but
    /// a timer's deadline (or a job) ends a poll in time for the test.
    static let idleWake = Duration.seconds(3_600)

    @Test func timersFireOnTheReactorInDeadlineOrderAndNotBeforeTheirDeadline() async throws {
        let reactor = Reactor(name: "reactor-timer-test", idleWake: Self.idleWake)
        defer { reactor.stop() }
        let fired = Mutex<[(label: String, onReactor: Bool, late: Duration)]>([])
        let firings = Arrivals()
        try reactor.sync {
            let start = ContinuousClock.now
            for (label, ms) in [("c", 60), ("a", 20), ("b", 40)] {
                let deadline = start + .milliseconds(ms)
                _ = reactor.schedule(at: deadline) {
                    let entry = (label, reactor.isCurrent, deadline.duration(to: .now))
                    fired.withLock { $0.append(entry) }
                    firings.signal()
                }
            }
            let cancelled = reactor.schedule(at: start + .milliseconds(30)) { fired.withLock { $0.append(("cancelled", true, .zero)) } }
            reactor.cancelTimer(cancelled)
        }
        // Nothing else wakes this idle reactor, whose poll would otherwise wait an hour: that the
        // timers fire at all shows each poll was cut short at the next deadline.
        #expect(await firings.wait(for: 3), "the three timers fired")
        let log = fired.withLock { $0 }
        #expect(log.map(\.label) == ["a", "b", "c"])
        #expect(log.allSatisfy { $0.onReactor && $0.late >= .zero }, "\(log)")
        // Later turns do not fire the cancelled timer either.
        try reactor.sync {}
        #expect(!fired.withLock { $0.contains { $0.label == "cancelled" } })
    }

    @Test func aTimerMayArmTheNextOne() async throws {
        let reactor = Reactor(name: "reactor-timer-chain", idleWake: Self.idleWake)
        defer { reactor.stop() }
        let count = Mutex(0)
        let tenth = Arrivals()
        @Sendable func arm() {
            _ = reactor.schedule(at: .now + .milliseconds(2)) {
                let total = count.withLock { value -> Int in
                    value += 1
                    return value
                }
                if total < 10 { arm() } else { tenth.signal() }
            }
        }
        try reactor.sync { arm() }
        #expect(await tenth.wait(), "ten chained ticks")
        #expect(count.withLock { $0 } == 10)
    }
}
