import SwiftRexTesting
import Synchronization
import Testing

@testable import SwiftRex

/// One-shot effect scheduling (E- rules): ids, replacement, debounce, throttle, delay, cancel,
/// generations, and bad input.
@Suite struct EffectSchedulingTests {
    enum Colour: Hashable, Sendable { case red }
    enum Team: Hashable, Sendable { case red }

    /// A feature whose actions carry the effect to run; effects send `.done(tag)`.
    enum Action: Sendable, Equatable {
        case run(String, Plan)
        case done(String)
        case cancel(String)
    }

    enum Plan: Sendable, Equatable {
        case keyed, replacing, debounce(Duration), throttle(Duration), delayed(Duration), anonymous
    }

    static func behavior(_ recorder: Recorder) -> Behavior<Action, [String], Void> {
        Behavior<Action, [String], Void>
            .reduce { action, state in
                if case .done(let tag) = action { state.append(tag) }
            }
            .produce { action, _ in
                switch action {
                case .run(let tag, let plan):
                    let id = tag.split(separator: "#").first.map(String.init) ?? tag
                    let effect = Effect<Action>.just(.done(tag))
                    switch plan {
                    case .keyed: return effect.scheduling(.keyed(id: id))
                    case .replacing: return effect.scheduling(.replacing(id: id))
                    case .debounce(let delay): return effect.scheduling(.debounce(id: id, delay: delay))
                    case .throttle(let interval): return effect.scheduling(.throttle(id: id, interval: interval))
                    case .delayed(let delay): return effect.scheduling(EffectScheduling.keyed(id: id).delayed(by: delay))
                    case .anonymous: return effect
                    }
                case .cancel(let id):
                    return .cancel(id: id)
                case .done:
                    return .empty
                }
            }
    }

    @Test func idsAreTypeAware() {
        let ids: [AnyHashableSendable] = [
            AnyHashableSendable(1), AnyHashableSendable(1.0), AnyHashableSendable("1"),
            AnyHashableSendable(Colour.red), AnyHashableSendable(Team.red),
        ]
        #expect(Set(ids).count == 5)
        #expect(AnyHashableSendable(1) == AnyHashableSendable(1))
        #expect(AnyHashableSendable(AnyHashableSendable("x")) == AnyHashableSendable("x"), "wrapping never nests")
    }

    @Test func keyedRunsUnderDifferentlyTypedIdsDoNotReplaceEachOther() async {
        let tokens = Recorder()
        let behavior = Behavior<Int, Int, Void>.produce { _, _ in
            let ids: [any Hashable & Sendable] = [1, 1.0, "1", Colour.red, Team.red]
            return mconcat(
                ids.map { id in
                    Effect(
                        subscribe: { _, _ in
                            tokens.log("start \(id)")
                            return SubscriptionToken { tokens.log("cancel \(id)") }
                        }, scheduling: .keyed(id: AnyHashableSendable(id)))
                })
        }
        let store = TestStore(initial: 0, behavior: behavior, environment: ())
        await store.send(0)
        #expect(tokens.log.count == 5 && tokens.log.allSatisfy { $0.hasPrefix("start") })
        #expect(await store.store.inFlightEffects() == 5)
        await store.release()
        #expect(tokens.log.filter { $0.hasPrefix("cancel") }.count == 5)
    }

    @Test func aNewRunUnderAnIdReplacesTheRunningOne() async {
        let log = Recorder()
        let complete = Mutex<[@Sendable () -> Void]>([])
        let behavior = Behavior<String, Int, Void>.produce { action, _ in
            Effect(
                subscribe: { send, done in
                    log.log("start \(action)")
                    complete.withLock { $0.append(done) }
                    return SubscriptionToken { log.log("cancel \(action)") }
                }, scheduling: .replacing(id: "job"))
        }
        let store = TestStore(initial: 0, behavior: behavior, environment: ())
        await store.send("A")
        await store.send("B")
        #expect(log.log == ["start A", "cancel A", "start B"])
        // A late completion of A never evicts B.
        complete.withLock { $0[0] }()
        await store.settle()
        #expect(await store.store.inFlightEffects() == 1)
        complete.withLock { $0[1] }()
        await store.settle()
        #expect(await store.store.inFlightEffects() == 0)
        #expect(log.log == ["start A", "cancel A", "start B"], "a completed run is not cancelled")
        await store.finish()
    }

    @Test func sendsOfAReplacedRunAreDropped() async {
        let sends = Mutex<[@Sendable (DispatchedAction<String>) -> Void]>([])
        let behavior = Behavior<String, [String], Void>
            .reduce { action, state in if action.hasPrefix("from") { state.append(action) } }
            .produce { action, _ in
                guard !action.hasPrefix("from") else { return .empty }
                return Effect(
                    subscribe: { send, _ in
                        sends.withLock { $0.append(send) }
                        return .empty
                    }, scheduling: .keyed(id: "job"))
            }
        let store = TestStore(initial: [], behavior: behavior, environment: ())
        await store.send("A")
        await store.send("B")
        sends.withLock { $0[0] }(DispatchedAction("from A"))
        sends.withLock { $0[1] }(DispatchedAction("from B"))
        await store.receive("from B") { $0 = ["from B"] }
        await store.release()
    }

    @Test func debounceRunsOnlyTheLatestAfterQuiet() async {
        let clock = TestClock()
        let store = TestStore(initial: [], behavior: Self.behavior(Recorder()), environment: (), clock: clock)
        await store.send(.run("q#1", .debounce(.milliseconds(300))))
        clock.advance(by: .milliseconds(200))
        await store.send(.run("q#2", .debounce(.milliseconds(300))))
        clock.advance(by: .milliseconds(200))
        await store.send(.run("q#3", .debounce(.milliseconds(300))))
        clock.advance(by: .milliseconds(299))
        await store.expectNoAction()
        clock.advance(by: .milliseconds(1))
        await store.receive(.done("q#3")) { $0 = ["q#3"] }
        await store.finish()
    }

    @Test func throttleRunsTheFirstAndDropsArrivalsInsideTheWindow() async {
        let clock = TestClock()
        let store = TestStore(initial: [], behavior: Self.behavior(Recorder()), environment: (), clock: clock)
        await store.send(.run("t#1", .throttle(.seconds(1))))
        await store.receive(.done("t#1")) { $0 = ["t#1"] }
        clock.advance(by: .milliseconds(999))
        await store.send(.run("t#2", .throttle(.seconds(1))))
        await store.expectNoAction()
        clock.advance(by: .milliseconds(1))
        await store.send(.run("t#3", .throttle(.seconds(1))))
        await store.receive(.done("t#3")) { $0 = ["t#1", "t#3"] }
        await store.finish()
    }

    @Test func delayedRunsAfterTheDelay() async {
        let clock = TestClock()
        let store = TestStore(initial: [], behavior: Self.behavior(Recorder()), environment: (), clock: clock)
        await store.send(.run("d", .delayed(.seconds(2))))
        clock.advance(by: .seconds(1))
        await store.expectNoAction()
        clock.advance(by: .seconds(1))
        await store.receive(.done("d")) { $0 = ["d"] }
        await store.finish()
    }

    @Test func aCancelBeforeADelayedOrDebouncedStartAlwaysWins() async {
        let clock = TestClock()
        let store = TestStore(initial: [], behavior: Self.behavior(Recorder()), environment: (), clock: clock)
        await store.send(.run("d", .delayed(.seconds(1))))
        await store.send(.run("b", .debounce(.seconds(1))))
        await store.send(.cancel("d"))
        await store.send(.cancel("b"))
        clock.advance(by: .seconds(5))
        await store.expectNoAction()
        #expect(await store.store.inFlightEffects() == 0)
        await store.finish()
    }

    @Test func negativeDurationsClampToZero() async {
        let clock = TestClock()
        let store = TestStore(initial: [], behavior: Self.behavior(Recorder()), environment: (), clock: clock)
        await store.send(.run("n", .delayed(.seconds(-5))))
        await store.receive(.done("n")) { $0 = ["n"] }
        await store.send(.run("m", .debounce(.seconds(-1))))
        await store.receive(.done("m")) { $0 = ["n", "m"] }
        await store.send(.run("k", .throttle(.seconds(-1))))
        await store.receive(.done("k")) { $0 = ["n", "m", "k"] }
        #expect(ChannelLifetime.ephemeral(resetKey: 1, settle: .seconds(-3)).settle == .zero)
        await store.finish()
    }

    @Test func effectsFormAMonoidAndMapKeepsProvenance() {
        let a = Effect<Int>.just(1)
        let b = Effect<Int>.sequence([2, 3])
        #expect(Effect.combine(a, .empty).componentCount == 1)
        #expect(Effect.combine(.empty, b).componentCount == 1)
        #expect(mconcat([a, b, .empty, a]).componentCount == 3)
        #expect(Effect<Int>.empty.isEmpty && mconcat([Effect<Int>]()).isEmpty)

        let line: UInt = #line + 1
        let sourced = Effect<Int>.just(7).map { "\($0)" }
        let received = Mutex<[DispatchedAction<String>]>([])
        guard case .run(let subscribe) = sourced.components[0].kind else {
            Issue.record("just is a one-shot component")
            return
        }
        _ = subscribe({ action in received.withLock { $0.append(action) } }, {})
        let first = received.withLock { $0.first }
        #expect(first?.action == "7")
        #expect(first?.source.line == line)
        #expect(first?.source.file.hasSuffix("EffectSchedulingTests.swift") == true)
    }

    @Test func sequenceSendsInOrder() async {
        let behavior = Behavior<String, [String], Void>
            .reduce { action, state in state.append(action) }
            .produce { action, _ in action == "go" ? .sequence(["a", "b", "c"]) : .empty }
        let store = TestStore(initial: [], behavior: behavior, environment: ())
        await store.send("go") { $0 = ["go"] }
        await store.receive("a") { $0.append("a") }
        await store.receive("b") { $0.append("b") }
        await store.receive("c") { $0.append("c") }
        await store.finish()
    }

    @Test func taskBridgesSendTheirResult() async {
        struct Boom: Error {}
        let behavior = Behavior<String, [String], Void>
            .reduce { action, state in state.append(action) }
            .produce { action, _ in
                switch action {
                case "task": .task { "from task" }
                case "throwing":
                    .throwingTask(transform: { (result: Result<Int, any Error>) in
                        if case .failure = result { "failed" } else { "ok" }
                    }) { throw Boom() }
                case "stream":
                    .asyncSequence(
                        AsyncStream<String> { c in
                            c.yield("s1"); c.yield("s2"); c.finish()
                        }
                    ) { $0 }
                default: .empty
                }
            }
        let store = TestStore(initial: [], behavior: behavior, environment: ())
        await store.send("task") { $0 = ["task"] }
        await store.receive("from task") { $0.append("from task") }
        await store.send("throwing") { $0.append("throwing") }
        await store.receive("failed") { $0.append("failed") }
        await store.send("stream") { $0.append("stream") }
        await store.receive("s1") { $0.append("s1") }
        await store.receive("s2") { $0.append("s2") }
        await store.finish()
    }
}

/// The reconcile duration histogram reports percentiles within a bucket's width.
@Suite struct DurationHistogramTests {
    @Test func percentilesFallWithinTheirBucket() {
        var histogram = DurationHistogram()
        #expect(histogram.percentile(0.5) == .zero)
        for microseconds in 1...100 { histogram.record(.microseconds(microseconds)) }
        let median = histogram.percentile(0.5)
        let p99 = histogram.percentile(0.99)
        #expect(median >= .microseconds(50) && median <= .microseconds(60))
        #expect(p99 >= .microseconds(99) && p99 <= .microseconds(100))
        #expect(histogram.count == 100 && histogram.max == .microseconds(100))
        histogram.record(.seconds(-1))
        #expect(histogram.count == 101)
    }
}
