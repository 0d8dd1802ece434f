import SharedTestSupport
import Testing

@testable import SwiftRex

/// The engine's compact storage on its own: the slot index and registry against a dictionary
/// model over seeded random operations, and the fixed-size history ring of `ChannelStats`.
@Suite struct EngineStorageTests {
    /// Ids that collide in the low bits (multiples of 2^20) and strings, so probing runs long.
    static func id(_ n: Int) -> AnyHashableSendable {
        n % 3 == 0 ? AnyHashableSendable("id-\(n)") : AnyHashableSendable(n << 20)
    }

    @Test(arguments: [1, 2, 3])
    func theRegistryAgreesWithADictionaryOverRandomInsertsAndRemovals(seed: UInt64) {
        var random = SeededGenerator(state: seed)
        var registry = EngineRegistry<Never>()
        var model: [AnyHashableSendable: UInt64] = [:]
        for step in 0..<20_000 {
            let key = Self.id(Int.random(in: 0..<3_000, using: &random))
            if Bool.random(using: &random) || model.count > 2_500 {
                let removed = registry.removeValue(forKey: key)
                let expected = model.removeValue(forKey: key)
                #expect(Self.generation(removed) == expected, "step \(step): remove \(key)")
            } else {
                let generation = UInt64(step)
                registry[key] = .effect(RunningEffect(generation: generation))
                model[key] = generation
            }
            if step % 997 == 0 {
                #expect(registry.count == model.count)
                for (key, generation) in model { #expect(Self.generation(registry[key]) == generation) }
                #expect(Set(registry.keys) == Set(model.keys))
            }
        }
        for (key, generation) in model { #expect(Self.generation(registry[key]) == generation) }
        #expect(registry[Self.id(1_000_000)] == nil)
    }

    /// A lift's index of element ids holds consecutive numbers as often as not; their hashes
    /// (the number times a constant) must still spread over the table. With the tag's old mixing
    /// they sat 33 buckets from home on average (0.3 for random hashes at this load).
    @Test func consecutiveIntIDsSitNextToTheirHomeBuckets() {
        var index = SlotIndex()
        let ids = (0..<100_000).map { AnyHashableSendable($0) }
        index.reserveCapacity(ids.count)
        for (slot, id) in ids.enumerated() { index.insert(id, slot: slot) }
        #expect(index.meanDisplacement < 1, "mean displacement \(index.meanDisplacement)")
        for slot in stride(from: 0, to: ids.count, by: 997) { #expect(index.slot(of: ids[slot]) { ids[$0] } == slot) }
    }

    static func generation(_ slot: EngineSlot<Never>?) -> UInt64? {
        guard case .effect(let run) = slot else { return nil }
        return run.generation
    }

    @Test func theHistoryKeepsTheLastEightEventsWithEveryRecreationsKeys() {
        let stats = ChannelStats()
        stats.recordOpened(at: .milliseconds(1))
        for round in 1...6 {
            let at = Duration.milliseconds(10 * round)
            stats.recordCancelled(.resetKeyChanged, at: at)
            stats.recordRecreated(from: AnyHashableSendable(round - 1), to: AnyHashableSendable(round), at: at)
            stats.recordOpened(at: at)
        }
        let history = stats.history
        #expect(history.count == ChannelStats.historyLimit)
        let described = history.map { event -> String in
            let ms = event.at / .milliseconds(1)
            switch event.kind {
            case .opened: return "\(Int(ms)) opened"
            case .settling: return "\(Int(ms)) settling"
            case .recreated(let from, let to):
                return "\(Int(ms)) recreated \(from.map(\.description) ?? "nil")→\(to.map(\.description) ?? "nil")"
            case .dropped(let reason): return "\(Int(ms)) dropped \(reason)"
            case .cancelled(let reason): return "\(Int(ms)) cancelled \(reason)"
            }
        }
        #expect(
            described == [
                "40 recreated 3→4", "40 opened",
                "50 cancelled reset key changed", "50 recreated 4→5", "50 opened",
                "60 cancelled reset key changed", "60 recreated 5→6", "60 opened",
            ])
    }

    @Test func aHistoryOfRecreationsOnlyStillNamesTheirKeys() {
        // Four recreations with an open after each is the most the window can hold.
        let stats = ChannelStats()
        for round in 1...9 {
            stats.recordRecreated(from: AnyHashableSendable("k\(round - 1)"), to: AnyHashableSendable("k\(round)"), at: .seconds(round))
            stats.recordSettling(at: .seconds(round))
        }
        let keys = stats.history.compactMap { event -> String? in
            guard case .recreated(let from, let to) = event.kind else { return nil }
            return "\(from?.description ?? "nil")→\(to?.description ?? "nil")"
        }
        #expect(keys == ["k5→k6", "k6→k7", "k7→k8", "k8→k9"])
    }

    @Test func eventTimesKeepNanosecondsAndClampFarFromTheStart() {
        let stats = ChannelStats()
        stats.recordOpened(at: .nanoseconds(1_234_567_891))
        stats.recordDropped(.throttled, at: .seconds(Int64.max))
        let history = stats.history
        #expect(history.first?.at == .nanoseconds(1_234_567_891))
        #expect(history.last?.at == .nanoseconds(Int64.max))
        if case .dropped(let reason) = history.last?.kind { #expect(reason == "throttled") } else { Issue.record("not a drop") }
    }

    @Test func everyReasonHasItsOwnText() {
        let texts = ChannelEventReason.allCases.map(\.text)
        #expect(Set(texts).count == texts.count)
        #expect(ChannelEventReason.leftTheSet.text == "left the desired set")
        #expect(ChannelEventReason.cancelledByID.text == "cancel(id:)")
    }
}
