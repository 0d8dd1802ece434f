import SharedTestSupport
import SwiftRexTesting
import Synchronization
import Testing

/// Memoised supervise: what it skips, and proof that it never serves a stale channel.
@Suite struct MemoisedSuperviseTests {
    // MARK: - A feature written twice: memoised and opaque

    struct Member: Identifiable, Sendable, Equatable {
        let id: Int
        var resetKey: Int
        var value: Int
        /// Not supervised: changing it must not change any channel.
        var counter = 0

        /// What a member's channel depends on.
        struct Input: Equatable, Sendable {
            let resetKey: Int
            let value: Int
        }

        var input: Input { Input(resetKey: resetKey, value: value) }
    }

    struct World: Sendable, Equatable {
        /// Feeds: id → value, delivered `.onChange`.
        var feeds: [Int: Int] = [:]
        /// Peers: id → reset key.
        var peers: [Int: Int] = [:]
        var members: [Member] = []
        /// Bumped by the reducer whenever it changes something a member's channel reads (or adds
        /// or removes a member): the guard's input.
        var membersRevision = 0
        /// The members the reducer changed (for the change-log lift); small, so that some
        /// batches overflow it and the lift falls back to a walk.
        var memberChanges = ElementChanges<Int>(capacity: 2)
        /// Changes that no supervise reads.
        var noise = 0
    }

    enum Op: Sendable, Equatable {
        case putFeed(Int, Int)
        case removeFeed(Int)
        case putPeer(Int, Int)
        case removePeer(Int)
        case addMember(Int)
        case removeMember(Int)
        case rekeyMember(Int)
        case revalueMember(Int)
        case replaceMember(Int, Int)
        case countMember(Int)
        case swapMembers(Int, Int)
        case noise
    }

    static func reduce(_ ops: [Op], _ world: inout World) {
        for op in ops {
            switch op {
            case .putFeed(let id, let value): world.feeds[id] = value
            case .removeFeed(let id): world.feeds[id] = nil
            case .putPeer(let id, let key): world.peers[id] = key
            case .removePeer(let id): world.peers[id] = nil
            case .addMember(let id):
                guard !world.members.contains(where: { $0.id == id }) else { continue }
                // Inserted in the middle: the members after it move.
                world.members.insert(Member(id: id, resetKey: 0, value: 0), at: world.members.count / 2)
                world.membersRevision += 1
                world.memberChanges.record(id)
            case .removeMember(let id):
                world.members.removeAll { $0.id == id }
                world.membersRevision += 1
                world.memberChanges.record(id)
            case .rekeyMember(let index):
                guard !world.members.isEmpty else { continue }
                world.members[index % world.members.count].resetKey += 1
                world.membersRevision += 1
                world.memberChanges.record(world.members[index % world.members.count].id)
            case .revalueMember(let index):
                guard !world.members.isEmpty else { continue }
                world.members[index % world.members.count].value += 1
                world.membersRevision += 1
                world.memberChanges.record(world.members[index % world.members.count].id)
            case .replaceMember(let index, let id):
                guard !world.members.isEmpty, !world.members.contains(where: { $0.id == id }) else { continue }
                let position = index % world.members.count
                world.memberChanges.record(world.members[position].id)
                world.members[position] = Member(id: id, resetKey: 0, value: 0)
                world.membersRevision += 1
                world.memberChanges.record(id)
            case .countMember(let index):
                // Deliberately no revision bump: the channel does not read the counter.
                guard !world.members.isEmpty else { continue }
                world.members[index % world.members.count].counter += 1
            case .swapMembers(let a, let b):
                guard !world.members.isEmpty else { continue }
                world.members.swapAt(a % world.members.count, b % world.members.count)
                world.membersRevision += 1
                world.memberChanges.record(world.members[a % world.members.count].id)
                world.memberChanges.record(world.members[b % world.members.count].id)
            case .noise:
                world.noise += 1
            }
        }
    }

    /// A channel that logs its opens, deliveries and cancels under `name`.
    static func channel<Input: Hashable & Sendable>(
        _ name: String, id: some Hashable & Sendable, resetKey: some Hashable & Sendable, value: Input, _ recorder: Recorder
    ) -> Channel<[Op]> {
        Channel(id: id, lifetime: .ephemeral(resetKey: resetKey), broadcasting: .onChange(value)) { _ in
            recorder.log("open \(name)/\(resetKey)")
            return ChannelHandler(
                receive: { (value: Input) in recorder.log("deliver \(name) \(value)") },
                cancel: { recorder.log("cancel \(name)/\(resetKey)") }
            )
        }
    }

    static func feedChannels(_ feeds: [Int: Int], _ recorder: Recorder) -> Keep<[Op]> {
        feeds.keys.sorted().map { channel("feed\($0)", id: "feed\($0)", resetKey: 0, value: feeds[$0]!, recorder) }
    }

    static func peerChannels(_ peers: [Int: Int], _ recorder: Recorder) -> Keep<[Op]> {
        peers.keys.sorted().map { channel("peer\($0)", id: "peer\($0)", resetKey: peers[$0]!, value: 0, recorder) }
    }

    static func memberChannels(_ id: Int, _ input: Member.Input, _ recorder: Recorder) -> Keep<[Op]> {
        [channel("member\(id)", id: "socket", resetKey: input.resetKey, value: input.value, recorder)]
    }

    /// How the members' channels are supervised.
    enum Mode: CaseIterable {
        /// Opaque element supervise, no guard: everything re-derived every cycle.
        case opaque
        /// Memoised elements under a guard on the members' revision.
        case memoised
        /// Memoised elements, lifted with the reducer's change log (no guard).
        case logged
    }

    static func memberBehavior(_ mode: Mode, _ recorder: Recorder) -> Behavior<[Op], World, Void> {
        let element: Behavior<[Op], Member, Void> =
            mode == .opaque
            ? .supervise { member in Supervision { _ in memberChannels(member.id, member.input, recorder) } }
            : .supervise(on: { member in IdentifiedInput(id: member.id, input: member.input) }) { identified in
                Supervision { _ in memberChannels(identified.id, identified.input, recorder) }
            }
        switch mode {
        case .opaque:
            return element.liftCollection(action: { (_: [Op]) in nil }, embed: { _, ops in ops }, stateCollection: \World.members)
        case .memoised:
            return element.liftCollection(action: { (_: [Op]) in nil }, embed: { _, ops in ops }, stateCollection: \World.members)
                .memoisingSupervise(on: \.membersRevision)
        case .logged:
            return element.liftCollection(
                action: { (_: [Op]) in nil }, embed: { _, ops in ops }, stateCollection: \World.members, changes: \World.memberChanges
            )
        }
    }

    struct IdentifiedInput: Equatable, Sendable {
        let id: Int
        let input: Member.Input
    }

    static func behavior(_ mode: Mode, _ recorder: Recorder) -> Behavior<[Op], World, Void> {
        let base = Behavior<[Op], World, Void>.reduce(reduce)
        if mode != .opaque {
            return
                base
                .supervise(on: \.feeds) { feeds in Supervision { _ in feedChannels(feeds, recorder) } }
                .supervise(on: \.peers) { peers in Supervision { _ in peerChannels(peers, recorder) } }
                .combined(with: memberBehavior(mode, recorder))
        }
        return
            base
            .supervise { world in Supervision { _ in feedChannels(world.feeds, recorder) + peerChannels(world.peers, recorder) } }
            .combined(with: memberBehavior(.opaque, recorder))
    }

    static func randomOps(_ random: inout SeededGenerator) -> [Op] {
        (0..<Int.random(in: 1...5, using: &random)).map { _ in
            let id = Int.random(in: 0..<40, using: &random)
            switch Int.random(in: 0..<23, using: &random) {
            case 0..<3: return .putFeed(id, Int.random(in: 0..<3, using: &random))
            case 3: return .removeFeed(id)
            case 4..<6: return .putPeer(id, Int.random(in: 0..<3, using: &random))
            case 6: return .removePeer(id)
            case 7..<10: return .addMember(id)
            case 10: return .removeMember(id)
            case 11..<13: return .rekeyMember(id)
            case 13..<15: return .revalueMember(id)
            case 15: return .swapMembers(id, Int.random(in: 0..<40, using: &random))
            case 19: return .replaceMember(id, Int.random(in: 40..<80, using: &random))
            case 16..<19: return .countMember(id)
            default: return .noise
            }
        }
    }

    /// Memoised, change-logged and opaque stores side by side over seeded random batches: after
    /// every batch all three keep exactly the same channels (ids in order, with their lifetimes)
    /// and their bodies saw the same opens, deliveries and cancels in the same order — and the
    /// memoised ones really skipped work (cycles with nothing to diff, fewer positions examined).
    @Test(arguments: [(UInt64(11), false), (UInt64(12), false), (UInt64(13), true), (UInt64(14), false)])
    func memoisedAndOpaqueStoresDeclareTheSameChannelsEveryCycle(seed: UInt64, strict: Bool) async {
        var random = SeededGenerator(state: seed)
        let clock = TestClock()
        let options = StoreOptions(strictChannels: strict)
        let recorders = Mode.allCases.map { _ in Recorder() }
        let stores = Mode.allCases.enumerated().map { index, mode in
            TestStore(initial: World(), behavior: Self.behavior(mode, recorders[index]), environment: (), clock: clock, options: options)
        }
        for store in stores { await store.settle() }
        var model = World()
        var examined = Mode.allCases.map { _ in 0 }
        var logWalks = 0
        for step in 0..<400 {
            let ops = Self.randomOps(&random)
            let before = model
            Self.reduce(ops, &model)
            if model.memberChanges.revision - before.memberChanges.revision > 4 { logWalks += 1 }
            for recorder in recorders { recorder.clear() }
            for store in stores { await store.send(ops) { Self.reduce(ops, &$0) } }
            var keeps: [KeepSnapshot] = []
            for store in stores { keeps.append(await store.keep()) }
            let opaque = keeps[0]
            for (index, mode) in Mode.allCases.enumerated().dropFirst() {
                #expect(recorders[index].log == recorders[0].log, "step \(step) \(mode) \(ops): open/deliver/cancel sequence")
                #expect(keeps[index].channels.map(\.id) == opaque.channels.map(\.id), "step \(step) \(mode): keep set, in order")
                #expect(
                    keeps[index].channels.map { "\($0.lifetime) \($0.status)" } == opaque.channels.map { "\($0.lifetime) \($0.status)" },
                    "step \(step) \(mode): lifetimes"
                )
                let counters = keeps[index].counters
                #expect(
                    (counters.opens, counters.cancels, counters.deliveries) == (
                        opaque.counters.opens, opaque.counters.cancels, opaque.counters.deliveries
                    ),
                    "step \(step) \(mode): counters"
                )
            }
            // A memoised store never diffs more than the opaque one.
            let deltas = keeps.enumerated().map { $0.element.counters.examinedPositions - examined[$0.offset] }
            #expect(deltas[1] <= deltas[0] && deltas[2] <= deltas[0], "step \(step): positions examined \(deltas)")
            examined = keeps.map(\.counters.examinedPositions)
            // Against the model: one channel per feed, peer and member.
            #expect(opaque.channels.count == model.feeds.count + model.peers.count + model.members.count, "step \(step)")
        }
        var counters: [ReconcileCounters] = []
        for store in stores { counters.append(await store.keep().counters) }
        #expect(Set(counters.map(\.cycles)).count == 1)
        #expect(counters[1].skippedCycles > counters[0].skippedCycles + 20, "batches of noise and counters changed no supervise input")
        #expect(counters[2].skippedCycles > counters[0].skippedCycles + 20)
        #expect(counters[1].examinedPositions < counters[0].examinedPositions)
        #expect(counters[2].examinedPositions < counters[0].examinedPositions)
        #expect(logWalks >= 2, "some batches recorded more ids than the log keeps (the walk fallback ran)")
        for store in stores { await store.release() }
        let cancels = recorders.map { Set($0.log.filter { $0.hasPrefix("cancel") }) }
        #expect(cancels[1] == cancels[0] && cancels[2] == cancels[0])
    }

    // MARK: - What is skipped

    final class Counter: Sendable {
        private let value = Mutex<[String: Int]>([:])
        func bump(_ key: String) { value.withLock { $0[key, default: 0] += 1 } }
        subscript(key: String) -> Int { value.withLock { $0[key, default: 0] } }
    }

    struct Pair: Sendable, Equatable {
        var endpoint = "a"
        var other = 0
    }

    @Test func anEqualInputRunsNoSuperviseAndSkipsTheReconcile() async {
        let runs = Counter()
        let recorder = Recorder()
        let behavior = Behavior<Pair, Pair, Void>
            .reduce { next, state in state = next }
            .supervise(on: \.endpoint) { endpoint in
                runs.bump("supervise")
                return Supervision { _ in
                    [
                        Channel(id: "socket", lifetime: .ephemeral(resetKey: endpoint)) { _ in
                            recorder.log("open \(endpoint)")
                            return .cancelOnly { recorder.log("cancel \(endpoint)") }
                        }
                    ]
                }
            }
        let store = TestStore(initial: Pair(), behavior: behavior, environment: ())
        await store.settle()
        #expect(runs["supervise"] == 1)
        let before = await store.keep().counters
        await store.send(Pair(endpoint: "a", other: 1)) { $0.other = 1 }
        await store.send(Pair(endpoint: "a", other: 2)) { $0.other = 2 }
        #expect(runs["supervise"] == 1, "the input did not change: supervise not run")
        var counters = await store.keep().counters
        #expect(counters.cycles - before.cycles == 2)
        #expect(counters.skippedCycles - before.skippedCycles == 2)
        #expect(counters.examinedPositions == before.examinedPositions, "nothing diffed")
        await store.send(Pair(endpoint: "b", other: 2)) { $0.endpoint = "b" }
        #expect(runs["supervise"] == 2)
        counters = await store.keep().counters
        #expect(counters.skippedCycles - before.skippedCycles == 2)
        #expect(recorder.log == ["open a", "cancel a", "open b"], "a new reset key recreates")
        await store.release()
    }

    @Test func aGuardSkipsItsWholeSubtreeAndAnElementReRunsOnlyWhenItChanged() async {
        let runs = Counter()
        let element = Behavior<[Op], Member, Void>
            .supervise(on: \.resetKey) { key in
                runs.bump("element")
                return Supervision { _ in [Channel(id: "socket", lifetime: .ephemeral(resetKey: key)) { _ in .cancelOnly {} }] }
            }
        let behavior = Behavior<[Op], World, Void>
            .reduce(Self.reduce)
            .combined(with: element.liftCollection(action: { (_: [Op]) in nil }, embed: { _, ops in ops }, stateCollection: \World.members))
            .memoisingSupervise(on: \.membersRevision)
        var world = World()
        Self.reduce((0..<50).map { .addMember($0) }, &world)
        let store = TestStore(initial: world, behavior: behavior, environment: ())
        await store.settle()
        #expect(runs["element"] == 50)
        // Counters and noise change no revision: not one element is asked.
        await store.send([.countMember(3), .noise]) { Self.reduce([.countMember(3), .noise], &$0) }
        #expect(runs["element"] == 50)
        // One element re-keyed: only it runs again, and only its channel is recreated.
        let before = await store.keep().counters
        await store.send([.rekeyMember(7)]) { Self.reduce([.rekeyMember(7)], &$0) }
        #expect(runs["element"] == 51)
        let after = await store.keep().counters
        #expect(after.opens - before.opens == 1)
        #expect(after.cancels - before.cancels == 1)
        #expect(after.examinedPositions - before.examinedPositions == 1, "one position diffed, not 50")
        // One removed from the middle: the layout moved, nothing re-run, one cancel.
        await store.send([.removeMember(20)]) { Self.reduce([.removeMember(20)], &$0) }
        #expect(runs["element"] == 51)
        let removed = await store.keep()
        #expect(removed.counters.cancels - after.cancels == 1)
        #expect(removed.channels.count == 49)
        await store.release()
    }

    struct Screen: Sendable, Equatable {
        var detail: Pair?
        var other = 0
    }

    /// An optional part that goes away and comes back with an equal input: its memo says
    /// "unchanged", yet its channels were cancelled meanwhile and must open again.
    @Test func anOptionalPartReopensWhenItComesBackWithTheSameInput() async {
        let recorder = Recorder()
        let detail = Behavior<Screen, Pair, Void>
            .supervise(on: \.endpoint) { endpoint in
                Supervision { _ in
                    [
                        Channel(id: "detail", lifetime: .ephemeral(resetKey: endpoint)) { _ in
                            recorder.log("open \(endpoint)")
                            return .cancelOnly { recorder.log("cancel \(endpoint)") }
                        }
                    ]
                }
            }
        let behavior = Behavior<Screen, Screen, Void>
            .reduce { next, state in state = next }
            .combined(with: detail.liftState(\Screen.detail))
        let store = TestStore(initial: Screen(detail: Pair()), behavior: behavior, environment: ())
        await store.settle()
        await store.send(Screen(detail: nil)) { $0.detail = nil }
        await store.send(Screen(detail: nil, other: 1)) { $0.other = 1 }
        await store.send(Screen(detail: Pair(), other: 1)) { $0.detail = Pair() }
        #expect(recorder.log == ["open a", "cancel a", "open a"])
        #expect(await store.keep().liveIDs == [AnyHashableSendable("detail")])
        await store.release()
    }
}
