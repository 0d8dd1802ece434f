import SharedTestSupport
import Synchronization
import Testing

@testable import SwiftRex

/// What the engine's open path relies on since a channel's layers stopped wrapping `send` to add
/// the source and stopped receiving a ready-made `complete` closure: the source the engine stamps
/// is the declaring body's, every layer re-types what the body sends, only a pipeable channel
/// makes its `complete` hook, and one reconcile cycle reads the clock once.
@Suite struct ChannelOpenPathTests {
    enum ElementAction: Sendable, Equatable { case hello(Int) }

    struct Item: Identifiable, Sendable {
        let id: String
    }

    struct Items: Sendable {
        var items: [Item]
    }

    /// Records what channels send back to the store, with their source (the test kit's seam).
    final class Recorder: FeedbackInterceptor, Sendable {
        let actions = Mutex<[DispatchedAction<String>]>([])
        let arrivals = Arrivals()

        func intercept(_ action: DispatchedAction<String>, liveness: RunLiveness) {
            actions.withLock { $0.append(action) }
            arrivals.signal()
        }
    }

    @Test func aLiftedChannelsBodySendsThroughEveryLayerAndMakesNoCompleteHook() {
        let declared: UInt = #line + 1
        let channel = Channel<ElementAction>(id: "socket") { dispatch in
            dispatch(.hello(1))
            return .cancelOnly {}
        }
        let lifted = channel.lifted(toElement: AnyHashableSendable("a"), id: "a") { id, action in "\(id) \(action)" }
            .map { "[\($0)]" }
        #expect(lifted.source.line == declared)
        #expect(lifted.source.file.hasSuffix("ChannelOpenPathTests.swift"))
        #expect(lifted.id == Channel<ElementAction>.scopedID(AnyHashableSendable("socket"), AnyHashableSendable("a")))
        let sent = Mutex<[String]>([])
        var madeComplete = 0
        let handler = lifted.storage.open({ action in sent.withLock { $0.append(action) } }) {
            madeComplete += 1
            return {}
        }
        handler.cancel()
        #expect(sent.withLock { $0 } == ["[a hello(1)]"])
        #expect(madeComplete == 0)
    }

    /// Identity of an id's box (nil for an inline id).
    static func box(_ id: AnyHashableSendable) -> ObjectIdentifier? {
        if case .boxed(let box) = id.storage { return ObjectIdentifier(box) }
        return nil
    }

    @Test func aChannelReDeclaredInPlaceKeepsItsScopedIDsBoxAndOnlyThen() {
        let embed: @Sendable (String, ElementAction) -> String = { id, action in "\(id) \(action)" }
        let a = AnyHashableSendable("a")
        func socket(_ key: Int, id: String = "socket") -> Channel<ElementAction> {
            Channel(id: id, lifetime: .ephemeral(resetKey: key)) { _ in .cancelOnly {} }
        }
        let first = socket(1).lifted(toElement: a, id: "a", embed: embed)
        let rekeyed = socket(2).lifted(toElement: a, id: "a", embed: embed, replacing: first)
        #expect(rekeyed.id == first.id)
        #expect(Self.box(rekeyed.id) != nil && Self.box(rekeyed.id) == Self.box(first.id))
        #expect(rekeyed.lifetime.resetKey == AnyHashableSendable(2))
        // Another element, or another inner id, at that position: a new scoped id.
        let moved = socket(2).lifted(toElement: AnyHashableSendable("b"), id: "b", embed: embed, replacing: first)
        let renamed = socket(2, id: "other").lifted(toElement: a, id: "a", embed: embed, replacing: first)
        #expect(moved.id == Channel<ElementAction>.scopedID(AnyHashableSendable("socket"), AnyHashableSendable("b")))
        #expect(renamed.id == Channel<ElementAction>.scopedID(AnyHashableSendable("other"), a))
        #expect(moved.id != first.id && renamed.id != first.id)
        // A vacant position before, or an id that is not element-scoped: nothing to reuse.
        let fromVacant = socket(3).lifted(toElement: a, id: "a", embed: embed, replacing: .vacant())
        #expect(fromVacant.id == first.id && Self.box(fromVacant.id) != Self.box(first.id))
    }

    @Test func aPipeableChannelMakesItsCompleteHookOnceAndItReachesTheEngine() {
        let effect = Effect<String>.channel(value: 1, scheduling: EffectScheduling(id: AnyHashableSendable("pipe"))) { send, complete in
            send("opened")
            return ChannelHandler(receive: { (value: Int) in if value == 2 { complete() } }, cancel: {})
        }
        guard case .open(let channel) = effect.components[0].kind else {
            Issue.record("Effect.channel is an open component")
            return
        }
        let sent = Mutex<[String]>([])
        let completed = Mutex(0)
        var madeComplete = 0
        let handler = channel.map { "<\($0)>" }.storage.open({ action in sent.withLock { $0.append(action) } }) {
            madeComplete += 1
            return { completed.withLock { $0 += 1 } }
        }
        #expect(madeComplete == 1)
        #expect(handler.receive(1) && completed.withLock { $0 } == 0)
        #expect(handler.receive(2) && completed.withLock { $0 } == 1)
        #expect(sent.withLock { $0 } == ["<opened>"])
    }

    @Test func actionsOfALiftedSupervisedChannelCarryTheDeclaringSource() async throws {
        let declared: UInt = #line + 5  // the line of `Channel(id: "socket")` below
        let element = Behavior<ElementAction, Item, Void>
            .supervise(on: { $0.id }) { id in
                Supervision { _ in
                    [
                        Channel(id: "socket") { dispatch in
                            dispatch(.hello(id.count))
                            return .cancelOnly {}
                        }
                    ]
                }
            }
        let behavior = element.liftCollection(
            action: { (_: String) in nil }, embed: { id, action in "\(id) \(action)" }, stateCollection: \Items.items)
        let recorder = Recorder()
        let store = Store(
            initial: Items(items: [Item(id: "ab"), Item(id: "xyz")]), behavior: behavior, environment: (), clock: ContinuousClock(),
            executor: .queue(), options: StoreOptions(), interceptor: recorder)
        #expect(await recorder.arrivals.wait(for: 2), "both channels sent")
        let actions = recorder.actions.withLock { $0 }
        #expect(actions.map(\.action).sorted() == ["ab hello(2)", "xyz hello(3)"])
        #expect(actions.map(\.source.line) == [declared, declared])
        #expect(actions.allSatisfy { $0.source.file.hasSuffix("ChannelOpenPathTests.swift") })
        await store.release()
    }

    /// A clock that moves 1 ms at every reading, so every reading is told apart.
    struct TickingClock: Clock {
        struct Instant: InstantProtocol {
            let offset: Duration
            func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
            func duration(to other: Instant) -> Duration { other.offset - offset }
            static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        }

        final class Readings: Sendable {
            let count = Mutex(0)
        }

        let readings = Readings()

        var now: Instant {
            Instant(
                offset: .milliseconds(
                    readings.count.withLock { count in
                        count += 1
                        return count
                    }))
        }

        var minimumResolution: Duration { .zero }

        func sleep(until deadline: Instant, tolerance: Duration?) async throws {
            try await Task.sleep(for: .seconds(3_600))
        }
    }

    @Test func everyOpenOfOneCycleIsStampedWithOneReadingOfTheClock() async {
        let behavior = Behavior<String, Int, Void>.supervise { count in
            Supervision { _ in (0..<count).map { index in Channel(id: index) { _ in .cancelOnly {} } } }
        }
        let clock = TickingClock()
        let store = Store(initial: 5, behavior: behavior, environment: (), clock: clock)
        await store.waitUntilIdle()
        let channels = await store.keep().channels
        #expect(channels.count == 5)
        #expect(Set(channels.map(\.since)).count == 1, "opened in one cycle, stamped \(channels.map(\.since))")
        #expect(Set(channels.flatMap { $0.history.map(\.at) }).count == 1)
        await store.release()
    }
}
