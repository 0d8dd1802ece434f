import SharedTestSupport
import SwiftRexTesting
import Synchronization
import Testing

/// Model-based churn: seeded random batches over hundreds of keyed channels. After every cycle
/// the live keep set equals what supervise(state) declares, and the engine did exactly the
/// minimal diff — no more opens, cancels or deliveries than the state change requires.
@Suite struct ModelChurnTests {
    struct Entry: Sendable, Equatable {
        var resetKey: Int
        var value: Int
    }

    enum Op: Sendable, Equatable {
        case put(Int, Entry)
        case remove(Int)
    }

    /// Per-id count of open instances, as the channel bodies and handlers see it.
    final class Liveness: Sendable {
        let open = Mutex<[Int: Int]>([:])
        let maxConcurrent = Mutex(0)

        func opened(_ id: Int) {
            let now = open.withLock {
                $0[id, default: 0] += 1; return $0[id]!
            }
            maxConcurrent.withLock { $0 = max($0, now) }
        }

        func closed(_ id: Int) { open.withLock { $0[id, default: 0] -= 1 } }

        var liveIDs: Set<Int> { open.withLock { Set($0.filter { $0.value > 0 }.keys) } }
        var balanced: Bool { open.withLock { $0.values.allSatisfy { $0 == 0 || $0 == 1 } } }
    }

    /// `ordered`: channels in key order, so most ids keep their positions between cycles (the
    /// engine's in-place path); otherwise dictionary order, which reshuffles (the full diff).
    static func behavior(_ liveness: Liveness, ordered: Bool) -> Behavior<[Op], [Int: Entry], Void> {
        Behavior<[Op], [Int: Entry], Void>
            .reduce { ops, state in
                for op in ops {
                    switch op {
                    case .put(let id, let entry): state[id] = entry
                    case .remove(let id): state[id] = nil
                    }
                }
            }
            .supervise { state in
                Supervision { _ in
                    let ids = ordered ? state.keys.sorted() : Array(state.keys)
                    return ids.map { id in
                        let entry = state[id]!
                        return Channel(id: id, lifetime: .ephemeral(resetKey: entry.resetKey), broadcasting: .onChange(entry.value)) { _ in
                            liveness.opened(id)
                            return ChannelHandler(receive: { (_: Int) in }, cancel: { liveness.closed(id) })
                        }
                    }
                }
            }
    }

    @Test(arguments: [(false, false), (true, false), (false, true), (true, true)])
    func liveSetMatchesSuperviseAndTheDiffIsMinimal(strict: Bool, ordered: Bool) async {
        var random = SeededGenerator(state: strict ? 7 : 42)
        let liveness = Liveness()
        let store = TestStore(
            initial: [:], behavior: Self.behavior(liveness, ordered: ordered), environment: (),
            options: StoreOptions(strictChannels: strict)
        )
        var model: [Int: Entry] = [:]
        var previous = await store.keep().counters

        for step in 0..<300 {
            // A batch of random operations, biased so the set grows to a few hundred ids.
            var ops: [Op] = []
            for _ in 0..<Int.random(in: 1...12, using: &random) {
                let id = Int.random(in: 0..<400, using: &random)
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<2: ops.append(.remove(id))
                case 2..<4 where model[id] != nil: ops.append(.put(id, Entry(resetKey: model[id]!.resetKey + 1, value: model[id]!.value)))
                case 4..<6 where model[id] != nil: ops.append(.put(id, Entry(resetKey: model[id]!.resetKey, value: model[id]!.value + 1)))
                default: ops.append(.put(id, Entry(resetKey: 0, value: 0)))
                }
            }
            var next = model
            for op in ops {
                switch op {
                case .put(let id, let entry): next[id] = entry
                case .remove(let id): next[id] = nil
                }
            }
            let added = next.keys.filter { model[$0] == nil }.count
            let removed = model.keys.filter { next[$0] == nil }.count
            let recreated = next.keys.filter { model[$0] != nil && model[$0]!.resetKey != next[$0]!.resetKey }.count
            let piped = next.keys.filter {
                model[$0] != nil && model[$0]!.resetKey == next[$0]!.resetKey && model[$0]!.value != next[$0]!.value
            }.count
            let expectedState = next
            await store.send(ops) { $0 = expectedState }
            model = next

            let snapshot = await store.keep()
            let counters = snapshot.counters
            let newInstances = added + recreated
            let expectedOpens = strict ? 2 * newInstances : newInstances
            let expectedCancels = removed + recreated + (strict ? newInstances : 0)
            let expectedDeliveries = expectedOpens + piped
            #expect(counters.opens - previous.opens == expectedOpens, "step \(step): opens")
            #expect(counters.cancels - previous.cancels == expectedCancels, "step \(step): cancels")
            #expect(counters.deliveries - previous.deliveries == expectedDeliveries, "step \(step): deliveries")
            #expect(Set(snapshot.liveIDs) == Set(model.keys.map { AnyHashableSendable($0) }), "step \(step): keep set")
            #expect(liveness.liveIDs == Set(model.keys), "step \(step): bodies and cancels")
            #expect(counters.liveChannels == model.count, "step \(step): opens − cancels = live")
            previous = counters
        }
        #expect(liveness.balanced)
        #expect(liveness.maxConcurrent.withLock { $0 } == 1, "never two live instances of one id")
        #expect(model.count > 100, "the run reached hundreds of channels")
        await store.release()
        #expect(liveness.liveIDs.isEmpty, "release ran every cancel")
    }

    /// Ids replaced and swapped at fixed positions: the engine's in-place path with moved ids.
    @Test(arguments: [false, true])
    func replacingAndSwappingIdsInPlaceKeepsTheSetExact(strict: Bool) async {
        var random = SeededGenerator(state: strict ? 3 : 5)
        let liveness = Liveness()
        struct Slot: Sendable, Equatable { var id: Int; var resetKey: Int }
        let behavior = Behavior<[Slot], [Slot], Void>
            .reduce { slots, state in state = slots }
            .supervise { state in
                Supervision { _ in
                    state.map { slot in
                        Channel(id: slot.id, lifetime: .ephemeral(resetKey: slot.resetKey)) { _ in
                            liveness.opened(slot.id)
                            return .cancelOnly { liveness.closed(slot.id) }
                        }
                    }
                }
            }
        var slots = (0..<200).map { Slot(id: $0, resetKey: 0) }
        var nextID = 200
        let store = TestStore(initial: slots, behavior: behavior, environment: (), options: StoreOptions(strictChannels: strict))
        await store.settle()
        var previous = await store.keep().counters
        for step in 0..<200 {
            var next = slots
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let position = Int.random(in: 0..<next.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    next[position].id = nextID
                    nextID += 1
                case 1:
                    next.swapAt(position, Int.random(in: 0..<next.count, using: &random))
                default:
                    next[position].resetKey += 1
                }
            }
            let before = Dictionary(uniqueKeysWithValues: slots.map { ($0.id, $0.resetKey) })
            let after = Dictionary(uniqueKeysWithValues: next.map { ($0.id, $0.resetKey) })
            let added = after.keys.filter { before[$0] == nil }.count
            let removed = before.keys.filter { after[$0] == nil }.count
            let recreated = after.keys.filter { before[$0] != nil && before[$0] != after[$0] }.count
            let expectedState = next
            await store.send(next) { $0 = expectedState }
            slots = next
            let counters = await store.keep().counters
            let fresh = added + recreated
            #expect(counters.opens - previous.opens == (strict ? 2 * fresh : fresh), "step \(step): opens")
            #expect(counters.cancels - previous.cancels == removed + recreated + (strict ? fresh : 0), "step \(step): cancels")
            #expect(liveness.liveIDs == Set(slots.map(\.id)), "step \(step): live set")
            previous = counters
        }
        #expect(liveness.balanced)
        await store.release()
        #expect(liveness.liveIDs.isEmpty)
    }
}
