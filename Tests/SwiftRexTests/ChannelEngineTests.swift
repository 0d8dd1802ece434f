import SharedTestSupport
import SwiftRexTesting
import Testing

/// The channel rules of ../shared/seeds/channels.txt and the R- rules of upstream-semantics.md.
@Suite struct ChannelEngineTests {
    let recorder = Recorder()
    let clock = TestClock()

    func makeStore() -> TestStore<ChannelsAction, ChannelsState, Void> {
        TestStore(initial: ChannelsState(), behavior: channelsFeature(recorder), environment: (), clock: clock)
    }

    @Test func bodyRunsOncePerInstanceAndCancelRunsOnceWhenTheIdLeaves() async {
        let store = makeStore()
        await store.send(.set("a", ChannelSpec())) { $0.channels["a"] = ChannelSpec() }
        await store.send(.event("unrelated")) { $0.events = ["unrelated"] }
        await store.send(.set("a", ChannelSpec()))  // same declaration: nothing happens
        #expect(recorder.log == ["open a"])
        await store.send(.remove("a")) { $0.channels = [:] }
        #expect(recorder.log == ["open a", "cancel a"])
        let counters = await store.keep().counters
        #expect(counters.opens == 1 && counters.cancels == 1 && counters.liveChannels == 0)
        await store.finish()
    }

    @Test func ephemeralRecreatesOnlyWhenTheResetKeyChanges() async {
        let store = makeStore()
        await store.send(.set("a", ChannelSpec(resetKey: 1, value: 10))) { $0.channels["a"] = ChannelSpec(resetKey: 1, value: 10) }
        await store.send(.set("a", ChannelSpec(resetKey: 1, value: 11))) { $0.channels["a"] = ChannelSpec(resetKey: 1, value: 11) }
        #expect(recorder.log == ["open a", "recv a 10", "recv a 11"], "a value change pipes, it does not recreate")
        await store.send(.set("a", ChannelSpec(resetKey: 2, value: 11))) { $0.channels["a"]?.resetKey = 2 }
        #expect(recorder.log.suffix(3) == ["cancel a", "open a", "recv a 11"], "cancel before open, current value on open")
        let entry = await store.keep().entry(for: "a")
        #expect(entry?.opens == 2 && entry?.recreates == 1)
        if case .recreated(let from, let to) = entry?.history.last(where: { if case .recreated = $0.kind { true } else { false } })?.kind {
            #expect(from == AnyHashableSendable(1) && to == AnyHashableSendable(2))
        } else {
            Issue.record("history lacks the recreate")
        }
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    @Test func settleDebouncesCreationAndNothingIsLiveMeanwhile() async {
        let store = makeStore()
        let spec = ChannelSpec(resetKey: 1, settle: .milliseconds(300), value: 1)
        await store.send(.set("s", spec)) { $0.channels["s"] = spec }
        #expect(recorder.log.isEmpty, "settle applies to the first appearance")
        #expect(await store.keep().entry(for: "s")?.status == .settling)

        await store.send(.broadcast("s", 99))  // dropped: nothing is live while settling
        clock.advance(by: .milliseconds(200))
        await store.send(.set("s", ChannelSpec(resetKey: 2, settle: .milliseconds(300), value: 2))) {
            $0.channels["s"] = ChannelSpec(resetKey: 2, settle: .milliseconds(300), value: 2)
        }
        clock.advance(by: .milliseconds(299))
        #expect(await store.keep().entry(for: "s")?.status == .settling, "a key change restarts the window")
        #expect(recorder.log.isEmpty)
        clock.advance(by: .milliseconds(1))
        await store.settle()
        #expect(recorder.log == ["open s", "recv s 2"], "opens once, with the latest declaration")

        // A key change tears the live one down at once and settles the next.
        await store.send(.set("s", ChannelSpec(resetKey: 3, settle: .milliseconds(300), value: 2))) { $0.channels["s"]?.resetKey = 3 }
        #expect(recorder.log.last == "cancel s")
        // Leaving during the window: the pending open never fires.
        await store.send(.remove("s")) { $0.channels = [:] }
        clock.advance(by: .seconds(1))
        await store.settle()
        #expect(recorder.log == ["open s", "recv s 2", "cancel s"])
        await store.finish()
    }

    @Test func onChangeDeliversOnOpenAndOnChangeOnly() async {
        let store = makeStore()
        await store.send(.set("c", ChannelSpec(value: 1))) { $0.channels["c"] = ChannelSpec(value: 1) }
        await store.send(.event("x")) { $0.events = ["x"] }
        await store.send(.set("c", ChannelSpec(value: 1)))
        await store.send(.set("c", ChannelSpec(value: 2))) { $0.channels["c"]?.value = 2 }
        #expect(recorder.log == ["open c", "recv c 1", "recv c 2"])
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    @Test func broadcastIsNotDedupedAndIsDroppedWhenNothingIsLive() async {
        let store = makeStore()
        await store.send(.broadcast("p", 7))
        #expect(await store.keep().counters.drops == 1)
        await store.send(.set("p", ChannelSpec())) { $0.channels["p"] = ChannelSpec() }
        await store.send(.broadcast("p", 7))
        await store.send(.broadcast("p", 7))
        await store.send(.broadcastText("p", "wrong type"))
        #expect(recorder.log == ["open p", "recv p 7", "recv p 7"])
        let entry = await store.keep().entry(for: "p")
        #expect(entry?.deliveries == 2 && entry?.drops == 1)
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    @Test func broadcastsReachTheInstanceLiveNowAcrossIdsRemovalAndReopen() async {
        // The engine remembers the channel the last broadcast reached; switching ids, removing
        // the channel and opening a new instance under the same id must each be honoured.
        let store = makeStore()
        await store.send(.set("p", ChannelSpec())) { $0.channels["p"] = ChannelSpec() }
        await store.send(.set("q", ChannelSpec())) { $0.channels["q"] = ChannelSpec() }
        await store.send(.broadcast("p", 1))
        await store.send(.broadcast("q", 2))
        await store.send(.broadcast("p", 3))
        await store.send(.remove("p")) { $0.channels["p"] = nil }
        await store.send(.broadcast("p", 4))  // nothing live under p: dropped
        await store.send(.set("p", ChannelSpec())) { $0.channels["p"] = ChannelSpec() }
        await store.send(.broadcast("p", 5))  // the new instance
        #expect(recorder.log == ["open p", "open q", "recv p 1", "recv q 2", "recv p 3", "cancel p", "open p", "recv p 5"])
        #expect(await store.keep().counters.drops == 1)
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    @Test func aBroadcastRightAfterARecreateReachesTheNewInstanceOnly() async {
        // No failed lookup in between: the instance the last broadcast reached was replaced
        // under the same id, and each instance logs under its own reset key.
        enum Action: Sendable, Equatable { case key(Int), send(Int) }
        let log = Recorder()
        let behavior = Behavior<Action, Int, Void>
            .reduce { action, key in if case .key(let new) = action { key = new } }
            .produce { action, _ in
                guard case .send(let value) = action else { return .empty }
                return .broadcast(value, channel: "c")
            }
            .supervise { key in
                Supervision { _ in
                    key == 0
                        ? []
                        : [
                            Channel(id: "c", lifetime: .ephemeral(resetKey: key)) { _ in
                                log.log("open k\(key)")
                                return ChannelHandler(
                                    receive: { (value: Int) in log.log("recv k\(key) \(value)") }, cancel: { log.log("cancel k\(key)") })
                            }
                        ]
                }
            }
        let store = TestStore(initial: 1, behavior: behavior, environment: (), clock: clock)
        await store.send(.send(1))
        await store.send(.key(2)) { $0 = 2 }
        await store.send(.send(2))
        await store.send(.send(3))
        #expect(log.log == ["open k1", "recv k1 1", "cancel k1", "open k2", "recv k2 2", "recv k2 3"])
        await store.send(.key(0)) { $0 = 0 }  // key 0: no channel
        await store.finish()
    }

    @Test func throttleDropsInsideTheWindowAndDedupComparesWithTheLastReconciledValue() async {
        let store = makeStore()
        let spec = { (value: Int) in ChannelSpec(value: value, delivery: .throttle(.seconds(1))) }
        await store.send(.set("t", spec(0))) { $0.channels["t"] = spec(0) }
        clock.advance(by: .milliseconds(500))
        await store.send(.set("t", spec(1))) { $0.channels["t"] = spec(1) }
        clock.advance(by: .milliseconds(500))
        await store.send(.set("t", spec(2))) { $0.channels["t"] = spec(2) }
        #expect(recorder.log == ["open t", "recv t 0", "recv t 2"])
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    @Test func throttleLatestDeliversTheLastDroppedValueAtTheEndOfTheWindow() async {
        let store = makeStore()
        let spec = { (value: Int) in ChannelSpec(value: value, delivery: .throttle(.seconds(1), latest: true)) }
        await store.send(.set("t", spec(0))) { $0.channels["t"] = spec(0) }
        for value in 1...5 {
            clock.advance(by: .milliseconds(100))
            await store.send(.set("t", spec(value))) { $0.channels["t"] = spec(value) }
        }
        #expect(recorder.log == ["open t", "recv t 0"])
        clock.advance(by: .milliseconds(500))
        await store.settle()
        #expect(recorder.log == ["open t", "recv t 0", "recv t 5"], "the final value always arrives")
        #expect(await store.keep().entry(for: "t")?.drops == 4)
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    @Test func debounceDeliversOnlyTheLatestAfterQuiet() async {
        let store = makeStore()
        await store.send(.set("d", ChannelSpec(delivery: .debounce(.milliseconds(100))))) {
            $0.channels["d"] = ChannelSpec(delivery: .debounce(.milliseconds(100)))
        }
        #expect(recorder.log == ["open d"], "pacing never defers opening")
        for value in 1...3 {
            await store.send(.broadcast("d", value))
            clock.advance(by: .milliseconds(50))
        }
        await store.settle()
        #expect(recorder.log == ["open d"])
        clock.advance(by: .milliseconds(50))
        await store.settle()
        #expect(recorder.log == ["open d", "recv d 3"])
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    @Test func recreateResetsTheDeliveryWindow() async {
        let store = makeStore()
        let spec = { (key: Int) in ChannelSpec(resetKey: key, delivery: .throttle(.seconds(1))) }
        await store.send(.set("r", spec(1))) { $0.channels["r"] = spec(1) }
        await store.send(.broadcast("r", 1))  // a .nothing channel's first broadcast passes
        await store.send(.broadcast("r", 2))  // inside the window: dropped
        await store.send(.set("r", spec(2))) { $0.channels["r"] = spec(2) }
        await store.send(.broadcast("r", 3))  // new instance, fresh window: passes
        #expect(recorder.log == ["open r", "recv r 1", "cancel r", "open r", "recv r 3"])
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    @Test func actionsFromABodyDuringOpenAreProcessedLater() async {
        let store = makeStore()
        let spec = ChannelSpec(announcesOpen: true)
        // The send's own state change excludes the event: the body's dispatch did not re-enter.
        await store.send(.set("b", spec)) { $0.channels["b"] = spec }
        await store.receive(.event("opened b")) { $0.events = ["opened b"] }
        #expect(recorder.count("open b") == 1)
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    @Test func cancelByIdTearsDownOnceAndTheChannelStaysClosedUntilItsKeyChanges() async {
        let store = makeStore()
        await store.send(.set("k", ChannelSpec(resetKey: 1))) { $0.channels["k"] = ChannelSpec(resetKey: 1) }
        await store.send(.cancel("k"))
        await store.send(.cancel("k"))
        #expect(recorder.log == ["open k", "cancel k"])
        await store.send(.event("e")) { $0.events = ["e"] }
        #expect(await store.keep().channels.isEmpty)
        await store.send(.set("k", ChannelSpec(resetKey: 2))) { $0.channels["k"]?.resetKey = 2 }
        #expect(recorder.log == ["open k", "cancel k", "open k"])
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    @Test func imperativeOpenIsAdoptedBySuperviseAndBroadcastReachesIt() async {
        let store = makeStore()
        await store.send(.open("i", ChannelSpec()))
        await store.send(.broadcast("i", 5))
        #expect(await store.keep().entry(for: "i")?.supervised == false)
        await store.send(.set("i", ChannelSpec(value: 6))) { $0.channels["i"] = ChannelSpec(value: 6) }
        #expect(recorder.log == ["open i", "recv i 5", "recv i 6"], "adopted, not reopened")
        #expect(await store.keep().entry(for: "i")?.supervised == true)
        await store.send(.remove("i")) { $0.channels = [:] }
        #expect(recorder.log.last == "cancel i")
        await store.finish()
    }

    @Test func aOneShotUnderALiveChannelIdIsDroppedAndReported() async {
        let diagnostics = Recorder()
        let store = TestStore(
            initial: ChannelsState(), behavior: channelsFeature(recorder), environment: (), clock: clock,
            options: StoreOptions(onDiagnostic: { diagnostics.log($0.kind.rawValue) })
        )
        await store.send(.set("z", ChannelSpec())) { $0.channels["z"] = ChannelSpec() }
        await store.send(.oneShot("z"))
        #expect(recorder.log == ["open z"], "the channel keeps running untouched")
        #expect(diagnostics.log == ["idCollision"])

        // The other way round: a supervised channel displaces a one-shot under its id.
        await store.send(.oneShot("w"))
        await store.send(.set("w", ChannelSpec())) { $0.channels["w"] = ChannelSpec() }
        #expect(recorder.log == ["open z", "run w", "stop w", "open w"])
        #expect(diagnostics.log == ["idCollision", "idCollision"])
        await store.send(.removeAll) { $0.channels = [:] }
        #expect(recorder.count("cancel z") == 1 && recorder.count("cancel w") == 1)
        await store.finish()
    }

    @Test func releasingTheStoreCancelsEveryChannelOnce() async {
        let store = makeStore()
        for id in ["a", "b", "c"] {
            await store.send(.set(id, ChannelSpec(resetKey: 1))) { $0.channels[id] = ChannelSpec(resetKey: 1) }
        }
        await store.release()
        await store.release()
        #expect(recorder.count("cancel a") == 1 && recorder.count("cancel b") == 1 && recorder.count("cancel c") == 1)
    }

    @Test func releasingTheLastReferenceTearsDownOnTheExecutor() async throws {
        let cancels = Arrivals()
        let recorder = Recorder { entry in if entry.hasPrefix("cancel ") { cancels.signal() } }
        var store: Store<ChannelsAction, ChannelsState, Void>? = Store(
            initial: ChannelsState(channels: ["a": ChannelSpec(), "b": ChannelSpec()]), behavior: channelsFeature(recorder)
        )
        await store?.waitUntilIdle()
        #expect(recorder.log == ["open a", "open b"], "the initial state's channels open without a dispatch")
        store = nil
        #expect(await cancels.wait(for: 2), "both channels cancelled")
        #expect(recorder.count("cancel a") == 1 && recorder.count("cancel b") == 1)
    }

    @Test func duplicateIdsInOneCycleOpenOnceAndTheLastDeclarationWins() async {
        let recorder = self.recorder
        let behavior = Behavior<Int, Int, Void>
            .reduce { action, state in state = action }
            .supervise { state in
                Supervision { _ in
                    guard state > 0 else { return [] }
                    return [1, 2, 3].map { n in
                        Channel(id: "dup", broadcasting: .onChange(n * state)) { _ in
                            recorder.log("open dup")
                            return ChannelHandler(
                                receive: { (v: Int) in recorder.log("recv \(v)") }, cancel: { recorder.log("cancel dup") })
                        }
                    }
                }
            }
        let store = TestStore(initial: 0, behavior: behavior, environment: ())
        await store.send(1) { $0 = 1 }
        #expect(recorder.log == ["open dup", "recv 3"])
        await store.send(0) { $0 = 0 }
        #expect(recorder.log == ["open dup", "recv 3", "cancel dup"])
        await store.finish()
    }

    @Test func pipeableChannelEffectFeedsOneInstanceUntilItCompletes() async {
        let recorder = self.recorder
        let behavior = Behavior<String, Int, Void>.produce { action, _ in
            if action == "done" { return .empty }
            return .channel(value: action, scheduling: .keyed(id: "pipe")) { send, complete in
                recorder.log("open")
                return ChannelHandler(
                    receive: { (value: String) in
                        recorder.log("recv \(value)")
                        if value == "last" { complete() }
                    },
                    cancel: { recorder.log("cancel") }
                )
            }
        }
        let store = TestStore(initial: 0, behavior: behavior, environment: ())
        await store.send("first")
        await store.send("second")
        await store.send("last")
        await store.settle()
        #expect(recorder.log == ["open", "recv first", "recv second", "recv last", "cancel"])
        await store.finish()
    }
}
