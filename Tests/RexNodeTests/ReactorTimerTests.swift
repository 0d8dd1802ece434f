import Foundation
import NodeTestSupport
import Synchronization
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The reactor's own timers (what the membership's protocol timer runs on): they fire on the
/// reactor thread, not before their deadline, in deadline order, shorten an idle poll, and a
/// cancelled one never fires.
@Suite struct ReactorTimerTests {
    @Test func timersFireOnTheReactorInDeadlineOrderAndNotBeforeTheirDeadline() async throws {
        let reactor = Reactor(name: "reactor-timer-test")
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
        #expect(await firings.wait(for: 3), "the three timers fired")
        let log = fired.withLock { $0 }
        #expect(log.map(\.label) == ["a", "b", "c"])
        #expect(log.allSatisfy { $0.onReactor && $0.late >= .zero }, "\(log)")
        // Nothing else wakes this idle reactor: without the timers its poll would wait a whole
        // second (its idle safety net) past a deadline, so firing well within it shows the poll
        // was shortened (measured in the timer itself, not by this test's polling).
        let latest = log.map(\.late).max() ?? .zero
        #expect(latest < .milliseconds(900), "a timer fired \(latest) late")
        // Later turns do not fire the cancelled timer either.
        try reactor.sync {}
        #expect(!fired.withLock { $0.contains { $0.label == "cancelled" } })
    }

    @Test func aTimerMayArmTheNextOne() async throws {
        let reactor = Reactor(name: "reactor-timer-chain")
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
