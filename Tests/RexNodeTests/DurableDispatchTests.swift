import RexControl
import SQLite
import SwiftRex
import SwiftRexTesting
import Synchronization
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The control endpoint's durable path without a disk: a recorder stands in for the journal
/// writer and the test reports each commit by hand, so actions wait exactly as long as the test
/// says. What is checked: the pending caps (count and bytes) refuse at once and free up with
/// the reports, and after a failed commit every waiting action gets a clear error, nothing that
/// was not committed is applied or answered as accepted, and every later action is refused.
@Suite struct DurableDispatchTests {
    static let fullDisk = SQLiteError(code: 13, message: "database or disk is full", operation: "step")

    @Test func thePendingCountCapRefusesUntilTheJournalReports() throws {
        let harness = Harness(mode: .batch, maxPending: 3)
        defer { harness.stop() }
        // Three in one reactor turn (one flush) fill the cap; a fourth is refused at once.
        let first = try harness.submit((1...4).map { set("t\($0)", "v") })
        #expect(first.prefix(3).allSatisfy { $0 == nil })
        #expect(first[3]?.code == .limitReached)
        #expect(first[3]?.message.contains("3 actions") == true && first[3]?.message.contains("waiting for its journal") == true)
        #expect(try harness.pending() == 3)
        #expect(harness.sink.batches == [[set("t1", "v"), set("t2", "v"), set("t3", "v")]], "the refused action never reaches the journal")
        #expect(try harness.submit([set("t4", "v")]) == [ControlError(.limitReached, first[3]!.message)])
        #expect(harness.replies.isEmpty, "nothing is answered before its commit")

        try harness.report(.committed(count: 3))
        #expect(harness.replies == [.accepted("t1"), .accepted("t2"), .accepted("t3")])
        #expect(try harness.pending() == 0)
        #expect(harness.waitForState { Set($0.feeds.keys) == ["t1", "t2", "t3"] })
        // Room again: the refused action was recorded nowhere (not in the ledger either).
        #expect(try harness.submit([set("t4", "v")]) == [nil])
        try harness.report(.committed(count: 1))
        #expect(harness.replies.last == .accepted("t4"))
    }

    @Test func thePendingByteCapRefusesUntilTheJournalReports() throws {
        // An action's bytes are 64 plus its strings: two 600-byte values pass the cap of 1000
        // (checked before each admission, so the last one in may pass it by its own size, which
        // --max-request-bytes bounds), the third waits.
        let harness = Harness(mode: .batch, maxPending: 1000, maxPendingBytes: 1000)
        defer { harness.stop() }
        let big = String(repeating: "x", count: 600)
        #expect(try harness.submit([set("a", big)]) == [nil])
        #expect(try harness.submit([set("b", big)]) == [nil], "a second turn: a second flush")
        let refused = try harness.submit([set("c", big)])
        #expect(refused.first??.code == .limitReached)
        #expect(refused.first??.message.contains("\(2 * (64 + 1 + 600)) bytes") == true)
        // One report covering both flushes releases both flushes' bytes.
        try harness.report(.committed(count: 2))
        #expect(harness.replies == [.accepted("a"), .accepted("b")])
        #expect(try harness.submit([set("c", big)]) == [nil])
    }

    @Test func withNoneTheAnswerComesAtTurnEndAndTheCapsStillHold() throws {
        let harness = Harness(mode: .none, maxPending: 2)
        defer { harness.stop() }
        #expect(try harness.submit([set("a", "1"), set("b", "2")]) == [nil, nil])
        // Answered and applied at the end of the turn, before any commit ...
        #expect(harness.replies == [.accepted("a"), .accepted("b")])
        #expect(harness.waitForState { $0.feeds.count == 2 })
        // ... but still pending for the journal: the writer's queue is bounded all the same.
        #expect(try harness.pending() == 2)
        #expect(try harness.submit([set("c", "3")]).first??.code == .limitReached)
        try harness.report(.committed(count: 2))
        #expect(try harness.pending() == 0)
        #expect(try harness.submit([set("c", "3")]) == [nil])
    }

    @Test func aFailedCommitRefusesItsActionsAndEveryLaterOne() throws {
        let harness = Harness(mode: .batch, maxPending: 100)
        defer { harness.stop() }
        #expect(try harness.submit([set("a", "1"), set("b", "2")]) == [nil, nil])
        #expect(try harness.submit([set("c", "3")]) == [nil], "a second flush, still waiting when the first fails")
        try harness.report(.failed(count: 2, error: Self.fullDisk))
        let refusals = harness.replies
        #expect(refusals.count == 2)
        for reply in refusals {
            guard case .refused(let error) = reply else { Issue.record("expected a refusal, got \(reply)"); continue }
            #expect(error.code == .notDurable)
            #expect(error.message.contains("could not commit the action to its journal"))
            #expect(error.message.contains("database or disk is full"))
            #expect(error.message.contains("it was not applied"))
        }
        #expect(try harness.failed())
        // A new action is refused at once, and never reaches the journal.
        let later = try harness.submit([set("d", "4")])
        #expect(later.first??.code == .notDurable)
        #expect(later.first??.message.contains("takes no more operator actions until it is restarted") == true)
        #expect(harness.sink.batches.count == 2)
        // The one still waiting gets its refusal with the writer's next report.
        try harness.report(.failed(count: 1, error: Self.fullDisk))
        #expect(harness.replies.count == 3 && harness.replies.allSatisfy { if case .refused = $0 { true } else { false } })
        #expect(try harness.pending() == 0)
        // Nothing that was not committed reached the store.
        try harness.settle()
        #expect(harness.store.state.feeds.isEmpty)
    }

    @Test func aJournalThatStopsAfterACommitRefusesWhatComesNext() throws {
        let harness = Harness(mode: .batch, maxPending: 100)
        defer { harness.stop() }
        #expect(try harness.submit([set("a", "1")]) == [nil])
        // The writer's order after a failed compaction: the batch committed, then the stop.
        try harness.report(.committed(count: 1))
        try harness.report(.failed(count: 0, error: Self.fullDisk))
        #expect(harness.replies == [.accepted("a")], "the committed action stays accepted")
        #expect(harness.waitForState { $0.feeds["a"]?.value == "1" })
        #expect(try harness.submit([set("b", "2")]).first??.code == .notDurable)
        #expect(try harness.metrics().failed)
    }

    @Test func withNoneAFailureStopsAdmissionAndAnswersNothingTwice() throws {
        let harness = Harness(mode: .none, maxPending: 100)
        defer { harness.stop() }
        #expect(try harness.submit([set("a", "1")]) == [nil])
        #expect(harness.replies == [.accepted("a")])
        try harness.report(.failed(count: 1, error: Self.fullDisk))
        #expect(harness.replies == [.accepted("a")], "answered before the commit (that is what none says); not answered again")
        #expect(try harness.submit([set("b", "2")]).first??.code == .notDurable)
    }

    @Test func theJournalMetricsCountPendingActionsAndTheFailure() throws {
        let harness = Harness(
            mode: .batch, maxPending: 100,
            recovery: {
                var report = RecoveryReport()
                report.discardedLogFrames = 2
                report.truncatedJournalBatches = 1
                return report
            }())
        defer { harness.stop() }
        var metrics = try harness.metrics()
        #expect(metrics.pendingActions == 0 && !metrics.failed && metrics.durability == .batch)
        #expect(metrics.truncatedLogTails == 1 && metrics.truncatedJournalTails == 1)
        _ = try harness.submit([set("a", "1"), set("b", "2"), set("c", "3")])
        #expect(try harness.metrics().pendingActions == 3)
        try harness.report(.committed(count: 3))
        metrics = try harness.metrics()
        #expect(metrics.pendingActions == 0)
        // The commit counters are the writer's: the recorder's, here.
        #expect(metrics.commits == 7 && metrics.actionsCommitted == 70 && metrics.compactions == 2)
        #expect(metrics.commitHistogram.reduce(0) { $0 + $1.count } == 7)
        #expect(metrics.commitMs == 7 * 3)
        try harness.report(.failed(count: 0, error: Self.fullDisk))
        #expect(try harness.metrics().failed)
    }

    @Test func pendingFollowsCountAgainstTheFollowLimit() throws {
        let harness = Harness(mode: .batch, maxPending: 100, limits: NodeLimits(maxFollows: 2))
        defer { harness.stop() }
        let codes = try harness.submit((1...3).map { NodeAction.follow(name: "f\($0)", topic: "t", from: nil) }).map { $0?.code }
        #expect(codes == [nil, nil, .limitReached], "the store holds no follow yet; the ledger counts the two waiting")
    }

    // MARK: - Harness

    private func set(_ topic: String, _ value: String) -> NodeAction { .set(topic: topic, value: value) }
}

/// A stand-in for the journal writer: keeps what it is handed; its counters are fixed figures.
private final class RecordingSink: JournalSink {
    private let handed = Mutex<[[NodeAction]]>([])

    var batches: [[NodeAction]] { handed.withLock { $0 } }

    func submit(_ actions: [NodeAction]) { handed.withLock { $0.append(actions) } }

    var counters: JournalCounters {
        var counters = JournalCounters()
        for _ in 0..<7 { counters.committed(10, in: .milliseconds(3)) }
        counters.compactions = 2
        return counters
    }
}

/// What the dispatch answered, in order.
private enum Reply: Equatable {
    case accepted(String)
    case refused(ControlError)
}

/// The replies so far, from the reactor thread, read by the test.
private final class Replies: Sendable {
    private let replies = Mutex<[Reply]>([])

    var all: [Reply] { replies.withLock { $0 } }

    func append(_ reply: Reply) { replies.withLock { $0.append(reply) } }
}

/// A dispatch on a reactor of its own, over a node store on a `TestClock` and an in-memory
/// transport; the test submits in reactor turns and reports commits itself.
private final class Harness: Sendable {
    let reactor: Reactor
    let sink = RecordingSink()
    let store: Store<NodeAction, NodeState, ClusterEnvironment>
    private let dispatch: ReactorBound<DurableDispatch>
    private let answered = Replies()

    init(
        mode: DurabilityMode, maxPending: Int, maxPendingBytes: Int = 1 << 20, limits: NodeLimits = NodeLimits(),
        recovery: RecoveryReport = RecoveryReport()
    ) {
        let reactor = Reactor(name: "dispatch-test")
        self.reactor = reactor
        let settings = NodeSettings(feedIntervalMs: 100, followSettleMs: 10, limits: limits)
        let network = InMemoryTransport()
        let clock = TestClock()
        let environment = ClusterEnvironment(
            transport: network.transport, settings: settings, clock: clock, log: NodeLogger(nodeID: "d1", level: .error, sink: { _ in }))
        let store = Store(
            initial: NodeState(id: "d1", settings: settings), behavior: NodeFeature.behavior,
            environment: environment, clock: clock, executor: .custom(reactor))
        self.store = store
        let sink = self.sink
        let answered = self.answered
        dispatch = try! reactor.sync {
            let dispatch = DurableDispatch(
                writer: sink, mode: mode, store: store, reactor: reactor, limits: limits, maxPending: maxPending,
                maxPendingBytes: maxPendingBytes, nodeID: "d1", recovery: recovery)
            dispatch.answer = { _, _, action in
                // The echo of a `set`: its topic.
                if action["type"] == .string("set"), let topic = action["topic"]?.stringValue { answered.append(.accepted(topic)) }
            }
            dispatch.refuse = { _, _, error in answered.append(.refused(error)) }
            return ReactorBound(dispatch, on: reactor)
        }
    }

    var replies: [Reply] { answered.all }

    /// Submits `actions` in one reactor turn; returns each one's refusal (nil: admitted). Returns
    /// after the turn ended, so the turn's flush has reached the sink.
    func submit(_ actions: [NodeAction]) throws -> [ControlError?] {
        let dispatch = self.dispatch
        let outcome = try reactor.sync { () -> [ControlError?] in
            actions.map { action in
                do throws(ControlError) {
                    try dispatch.value.submit(action, NodeFeature.operatorActions.json(action) ?? .null, envelope: [], id: .null)
                    return nil
                } catch {
                    return error
                }
            }
        }
        try reactor.sync {}  // the next turn starts after the last one's turn-end hooks
        return outcome
    }

    /// Gives the dispatch a report from "the writer", on the reactor (as the journal does).
    func report(_ outcome: JournalOutcome) throws {
        let dispatch = self.dispatch
        try reactor.sync { dispatch.value.handle(outcome) }
    }

    func pending() throws -> Int {
        let dispatch = self.dispatch
        return try reactor.sync { dispatch.value.pendingActions }
    }

    func failed() throws -> Bool {
        let dispatch = self.dispatch
        return try reactor.sync { dispatch.value.hasFailed }
    }

    func metrics() throws -> MetricsDocument.Journal {
        let dispatch = self.dispatch
        return try reactor.sync { dispatch.value.journalMetrics() }
    }

    /// Lets the store process what was dispatched into it (reactor turns until it is idle).
    func settle() throws {
        for _ in 0..<100 where store.mailboxDepth.current > 0 { try reactor.sync {} }
        try reactor.sync {}
    }

    /// Whether the store's state satisfies `condition` within 100 reactor turns.
    func waitForState(_ condition: (NodeState) -> Bool) -> Bool {
        for _ in 0..<100 {
            if condition(store.state) { return true }
            try? reactor.sync {}
        }
        return condition(store.state)
    }

    func stop() {
        let dispatch = self.dispatch
        try? reactor.sync { dispatch.value.stopAccepting() }
        reactor.stop()
    }
}
