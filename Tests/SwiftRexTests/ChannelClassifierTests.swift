import SwiftRexTesting
import Testing

/// `StoreOptions.channelClassifier`: opens, cancels and recreates counted per class, each
/// counter on its own (so a test fails if that one counter is not incremented).
@Suite struct ChannelClassifierTests {
    let recorder = Recorder()
    let clock = TestClock()

    /// Ids starting with "f" are class 0 ("feed"), the rest class 1 ("other").
    static let classifier = ChannelClassifier(classes: ["feed", "other"]) { id in
        (id.base as? String)?.hasPrefix("f") == true ? 0 : 1
    }

    func makeStore(classifier: ChannelClassifier? = Self.classifier) -> TestStore<ChannelsAction, ChannelsState, Void> {
        TestStore(
            initial: ChannelsState(), behavior: channelsFeature(recorder), environment: (), clock: clock,
            options: StoreOptions(channelClassifier: classifier)
        )
    }

    static func counts(_ counters: ReconcileCounters) -> [String: [Int]] {
        Dictionary(uniqueKeysWithValues: counters.byClass.map { ($0.name, [$0.opens, $0.cancels, $0.recreates]) })
    }

    @Test func opensAreCountedByClass() async {
        let store = makeStore()
        await store.send(.set("f1", ChannelSpec())) { $0.channels["f1"] = ChannelSpec() }
        await store.send(.set("f2", ChannelSpec())) { $0.channels["f2"] = ChannelSpec() }
        await store.send(.set("x", ChannelSpec())) { $0.channels["x"] = ChannelSpec() }
        let counters = await store.keep().counters
        #expect(counters.byClass.map(\.name) == ["feed", "other"], "every class listed, in the classifier's order")
        #expect(counters.byClass.map(\.opens) == [2, 1])
        #expect(counters.byClass.map(\.opens).reduce(0, +) == counters.opens)
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    @Test func cancelsAreCountedByClass() async {
        let store = makeStore()
        await store.send(.set("f1", ChannelSpec())) { $0.channels["f1"] = ChannelSpec() }
        await store.send(.set("x", ChannelSpec())) { $0.channels["x"] = ChannelSpec() }
        #expect(await store.keep().counters.byClass.map(\.cancels) == [0, 0])
        await store.send(.remove("f1")) { $0.channels["f1"] = nil }
        #expect(await store.keep().counters.byClass.map(\.cancels) == [1, 0], "left the set")
        await store.send(.cancel("x"))
        let counters = await store.keep().counters
        #expect(counters.byClass.map(\.cancels) == [1, 1], "cancelled by id")
        #expect(counters.byClass.map(\.cancels).reduce(0, +) == counters.cancels)
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    @Test func recreatesAreCountedByClass() async {
        let store = makeStore()
        await store.send(.set("f1", ChannelSpec(resetKey: 1))) { $0.channels["f1"] = ChannelSpec(resetKey: 1) }
        await store.send(.set("x", ChannelSpec(resetKey: 1))) { $0.channels["x"] = ChannelSpec(resetKey: 1) }
        await store.send(.set("f1", ChannelSpec(resetKey: 2))) { $0.channels["f1"]?.resetKey = 2 }
        await store.send(.set("f1", ChannelSpec(resetKey: 3))) { $0.channels["f1"]?.resetKey = 3 }
        let counters = await store.keep().counters
        #expect(counters.byClass.map(\.recreates) == [2, 0])
        #expect(Self.counts(counters) == ["feed": [3, 2, 2], "other": [1, 0, 0]], "a recreate is a cancel plus an open too")
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    /// `Store.reconcileCounters()` reads the same counters as `keep()`, without the keep set.
    @Test func theCountersAloneEqualTheKeepSnapshots() async {
        let store = makeStore()
        await store.send(.set("f1", ChannelSpec(resetKey: 1))) { $0.channels["f1"] = ChannelSpec(resetKey: 1) }
        await store.send(.set("x", ChannelSpec())) { $0.channels["x"] = ChannelSpec() }
        await store.send(.set("f1", ChannelSpec(resetKey: 2))) { $0.channels["f1"]?.resetKey = 2 }
        await store.send(.remove("x")) { $0.channels["x"] = nil }
        await store.settle()
        let alone = await store.store.reconcileCounters()
        #expect(alone == (await store.keep().counters))
        #expect(Self.counts(alone) == ["feed": [2, 1, 1], "other": [1, 1, 0]])
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    @Test func withoutAClassifierOnlyTotalsAreCounted() async {
        let store = makeStore(classifier: nil)
        await store.send(.set("f1", ChannelSpec(resetKey: 1))) { $0.channels["f1"] = ChannelSpec(resetKey: 1) }
        await store.send(.set("f1", ChannelSpec(resetKey: 2))) { $0.channels["f1"]?.resetKey = 2 }
        let counters = await store.keep().counters
        #expect(counters.byClass.isEmpty)
        #expect(counters.opens == 2 && counters.cancels == 1 && counters.recreates == 1)
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }

    @Test func anIndexOutsideTheClassesCountsInTheTotalsOnly() async {
        let store = TestStore(
            initial: ChannelsState(), behavior: channelsFeature(recorder), environment: (), clock: clock,
            options: StoreOptions(channelClassifier: ChannelClassifier(classes: ["only"]) { _ in 7 })
        )
        await store.send(.set("a", ChannelSpec())) { $0.channels["a"] = ChannelSpec() }
        let counters = await store.keep().counters
        #expect(counters.opens == 1 && counters.byClass.map(\.opens) == [0])
        await store.send(.removeAll) { $0.channels = [:] }
        await store.finish()
    }
}
