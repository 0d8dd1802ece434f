import SharedTestSupport
import SwiftRexTesting
import Testing

/// The keyed lift (`liftCollection(…, stateDictionary:, changes:)`): stable slots per key, so
/// adding and removing keys costs O(changes); proved against an opaque dictionary lift.
@Suite struct KeyedLiftTests {
    struct Member: Sendable, Equatable {
        let id: Int
        var resetKey = 0
        /// 0: no channel; 1: one; 2: two (so a key's width changes and slots move).
        var width = 1
        var value = 0
        /// Not supervised: changing it must not change any channel.
        var counter = 0

        struct Input: Equatable, Sendable {
            let id: Int
            let resetKey: Int
            let width: Int
            let value: Int
        }

        var input: Input { Input(id: id, resetKey: resetKey, width: width, value: value) }
    }

    struct World: Sendable, Equatable {
        var members: [Int: Member] = [:]
        /// Small, so that some batches overflow it and the lift walks the whole dictionary.
        var changes = ElementChanges<Int>(capacity: 3)
        var noise = 0
    }

    enum Op: Sendable, Equatable {
        case add(Int)
        case remove(Int)
        case rekey(Int)
        case rewidth(Int, Int)
        case revalue(Int)
        case count(Int)
        case noise
    }

    static func reduce(_ ops: [Op], _ world: inout World) {
        for op in ops {
            switch op {
            case .add(let id):
                guard world.members[id] == nil else { continue }
                world.members[id] = Member(id: id)
                world.changes.record(id)
            case .remove(let id):
                if world.members.removeValue(forKey: id) != nil { world.changes.record(id) }
            case .rekey(let id):
                guard world.members[id] != nil else { continue }
                world.members[id]!.resetKey += 1
                world.changes.record(id)
            case .rewidth(let id, let width):
                guard world.members[id] != nil else { continue }
                world.members[id]!.width = width
                world.changes.record(id)
            case .revalue(let id):
                guard world.members[id] != nil else { continue }
                world.members[id]!.value = (world.members[id]!.value + 1) % 3
                world.changes.record(id)
            case .count(let id):
                world.members[id]?.counter += 1
            case .noise:
                world.noise += 1
            }
        }
    }

    static func channels(_ input: Member.Input, _ recorder: Recorder) -> Keep<[Op]> {
        (0..<input.width).map { index in
            Channel(id: "socket\(index)", lifetime: .ephemeral(resetKey: input.resetKey), broadcasting: .onChange(input.value)) { _ in
                recorder.log("open \(input.id).\(index)/\(input.resetKey)")
                return ChannelHandler(
                    receive: { (value: Int) in recorder.log("deliver \(input.id).\(index) \(value)") },
                    cancel: { recorder.log("cancel \(input.id).\(index)/\(input.resetKey)") }
                )
            }
        }
    }

    static func behavior(keyed: Bool, _ recorder: Recorder) -> Behavior<[Op], World, Void> {
        let base = Behavior<[Op], World, Void>.reduce(reduce)
        guard keyed else {
            // Opaque: every member re-derived and every position diffed, every cycle.
            let element = Behavior<[Op], Member, Void>.supervise { member in Supervision { _ in channels(member.input, recorder) } }
            return base.combined(
                with: element.liftCollection(
                    action: { (_: [Op]) in nil }, embed: { _, ops in ops }, stateDictionary: \World.members
                ))
        }
        let element = Behavior<[Op], Member, Void>.supervise(on: \.input) { input in
            Supervision { _ in channels(input, recorder) }
        }
        return base.combined(
            with: element.liftCollection(
                action: { (_: [Op]) in nil }, embed: { _, ops in ops }, stateDictionary: \World.members, changes: \World.changes
            ))
    }

    static func randomOps(_ random: inout SeededGenerator) -> [Op] {
        (0..<Int.random(in: 1...5, using: &random)).map { _ in
            let id = Int.random(in: 0..<40, using: &random)
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<5: return .add(id)
            case 5..<8: return .remove(id)
            case 8..<10: return .rekey(id)
            case 10..<12: return .rewidth(id, Int.random(in: 0...2, using: &random))
            case 12..<14: return .revalue(id)
            case 14..<17: return .count(id)
            default: return .noise
            }
        }
    }

    /// Keyed and opaque stores side by side over seeded random batches: after every batch both
    /// keep the same channels (ids, lifetimes, statuses) and their bodies saw the same opens,
    /// deliveries and cancels. Within one cycle the two list their channels in different orders
    /// (the opaque one sorted by key, the keyed one by slot), so each cycle's events are compared
    /// as a multiset.
    @Test(arguments: [UInt64(21), 22, 23, 24])
    func keyedAndOpaqueStoresDeclareTheSameChannelsEveryCycle(seed: UInt64) async {
        var random = SeededGenerator(state: seed)
        let clock = TestClock()
        let recorders = [Recorder(), Recorder()]
        let stores = [false, true].enumerated().map { index, keyed in
            TestStore(initial: World(), behavior: Self.behavior(keyed: keyed, recorders[index]), environment: (), clock: clock)
        }
        for store in stores { await store.settle() }
        var model = World()
        var walks = 0
        for step in 0..<500 {
            let ops = Self.randomOps(&random)
            let before = model.changes.revision
            Self.reduce(ops, &model)
            if model.changes.revision - before > 3 { walks += 1 }
            for recorder in recorders { recorder.clear() }
            for store in stores { await store.send(ops) { Self.reduce(ops, &$0) } }
            let keeps = [await stores[0].keep(), await stores[1].keep()]
            #expect(recorders[1].log.sorted() == recorders[0].log.sorted(), "step \(step) \(ops): open/deliver/cancel events")
            let described = keeps.map { $0.channels.map { "\($0.id) \($0.lifetime) \($0.status)" }.sorted() }
            #expect(described[1] == described[0], "step \(step): keep set")
            let counters = keeps.map(\.counters)
            #expect(
                (counters[1].opens, counters[1].cancels, counters[1].deliveries) == (
                    counters[0].opens, counters[0].cancels, counters[0].deliveries
                ),
                "step \(step): counters"
            )
            // Per cycle the keyed store may examine more (a cycle that grows the vacant reserve
            // diffs the whole list, reserve included); over the run it examines less.
            #expect(keeps[0].channels.count == model.members.values.reduce(0) { $0 + $1.width }, "step \(step)")
        }
        let counters = [await stores[0].keep().counters, await stores[1].keep().counters]
        #expect(counters[1].skippedCycles > counters[0].skippedCycles + 20, "batches of noise and counters changed nothing")
        #expect(counters[1].examinedPositions < counters[0].examinedPositions)
        #expect(walks >= 2, "some batches recorded more keys than the log keeps (the walk ran)")
        for store in stores { await store.release() }
        let cancels = recorders.map { $0.log.filter { $0.hasPrefix("cancel") }.sorted() }
        #expect(cancels[1] == cancels[0])
    }

    /// Adding one key to a thousand examines a handful of positions, not a thousand (except when
    /// the vacant reserve is used up and the list grows: O(log n) times).
    @Test func addingAndRemovingOneKeyExaminesOnlyItsSlot() async {
        let recorder = Recorder()
        let store = TestStore(initial: World(), behavior: Self.behavior(keyed: true, recorder), environment: (), clock: TestClock())
        await store.send((0..<1_000).map { .add($0) }) { Self.reduce((0..<1_000).map { .add($0) }, &$0) }
        var wide = 0
        var last = await store.keep().counters.examinedPositions
        for id in 1_000..<1_200 {
            let ops: [Op] = id.isMultiple(of: 2) ? [.add(id)] : [.add(id), .remove(id - 1_000)]
            await store.send(ops) { Self.reduce(ops, &$0) }
            let counters = await store.keep().counters
            if counters.examinedPositions - last > 4 { wide += 1 }
            last = counters.examinedPositions
        }
        #expect(wide <= 2, "cycles that diffed more than the changed slots: \(wide)")
        let keep = await store.keep()
        #expect(keep.channels.count == 1_100)
        #expect(recorder.count("open 1199.0/0") == 1 && recorder.count("cancel 99.0/0") == 1)
        await store.release()
    }
}
