import Foundation
import NodeTestSupport
import SharedTestSupport
import SwiftRexTesting
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
            let start = reactor.now
            for (label, ms) in [("c", 60), ("a", 20), ("b", 40)] {
                let deadline = start + .milliseconds(ms)
                _ = reactor.schedule(at: deadline) {
                    let entry = (label, reactor.isCurrent, reactor.now - deadline)
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
            _ = reactor.schedule(after: .milliseconds(2)) {
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

/// The reactor's clock is injected: on a test clock its timers fire when the test moves time,
/// not when the machine's time passes.
@Suite struct ReactorInjectedClockTests {
    @Test func timersFollowTheInjectedClockNotTheMachines() async throws {
        let clock = TestClock()
        let reactor = Reactor(name: "reactor-test-clock", idleWake: ReactorTimerTests.idleWake, clock: ReactorClock(clock))
        defer { reactor.stop() }
        let fired = Mutex(0)
        try reactor.sync { _ = reactor.schedule(after: .seconds(3_600)) { fired.withLock { $0 += 1 } } }
        // Turns of the reactor with the test clock still: an hour's timer does not fire.
        for _ in 0..<3 { try reactor.sync {} }
        #expect(fired.withLock { $0 } == 0)
        #expect(try reactor.sync { reactor.now } == .zero)
        clock.advance(by: .seconds(3_600))
        // The next turn (a job wakes the idle reactor) finds it due.
        try reactor.sync {}
        try reactor.sync {}
        #expect(fired.withLock { $0 } == 1)
        #expect(try reactor.sync { reactor.now } == .seconds(3_600))
    }
}
