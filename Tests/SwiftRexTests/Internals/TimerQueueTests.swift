import SharedTestSupport
import Testing

@testable import SwiftRex

/// The engine's timer queue on its own: deadline order with insertion order for ties, across its
/// in-order run and its heap, against a sorted model over seeded random schedules and pops.
@Suite struct TimerQueueTests {
    static func ms(_ value: Int) -> Duration { .milliseconds(value) }

    /// An event that names its timer (the generation carries the id).
    static func event(_ id: Int) -> TimerEvent { .startPending(key: AnyHashableSendable("t"), generation: UInt64(bitPattern: Int64(id))) }

    static func id(of entry: TimerQueue.Entry) -> Int {
        guard case .startPending(_, let generation) = entry.event else { return -1 }
        return Int(Int64(bitPattern: generation))
    }

    /// Pops every timer due at `now`, by id.
    static func drain(_ queue: inout TimerQueue, now: Duration) -> [Int] {
        var ids: [Int] = []
        while let entry = queue.popDue(now: now) { ids.append(id(of: entry)) }
        return ids
    }

    @Test func timersPopByDeadlineThenInsertionOrder() {
        var queue = TimerQueue()
        // In order (the run), out of order (the heap), and ties in both.
        let deadlines = [50, 50, 10, 70, 10, 50, 30, 70, 5]
        for (id, deadline) in deadlines.enumerated() { queue.schedule(at: Self.ms(deadline), Self.event(id)) }
        #expect(queue.count == deadlines.count)
        #expect(queue.earliest == Self.ms(5))
        #expect(Self.drain(&queue, now: Self.ms(100)) == [8, 2, 4, 6, 0, 1, 5, 3, 7])
        #expect(queue.isEmpty && queue.earliest == nil)
    }

    @Test func onlyDueTimersPop() {
        var queue = TimerQueue()
        queue.schedule(at: Self.ms(20), Self.event(1))
        queue.schedule(at: Self.ms(40), Self.event(2))
        queue.schedule(at: Self.ms(10), Self.event(3))
        #expect(queue.popDue(now: Self.ms(9)) == nil)
        #expect(Self.drain(&queue, now: Self.ms(20)) == [3, 1], "a deadline equal to now is due")
        #expect(queue.count == 1 && queue.earliest == Self.ms(40))
        #expect(Self.drain(&queue, now: Self.ms(39)).isEmpty)
        #expect(Self.drain(&queue, now: Self.ms(40)) == [2])
    }

    @Test func aBurstInDeadlineOrderPopsInOrderAndTheQueueIsReusable() {
        var queue = TimerQueue()
        // 100,000 follows settling: one deadline per reconcile turn, many timers per deadline.
        for id in 0..<20_000 { queue.schedule(at: Self.ms(50 + id / 1000), Self.event(id)) }
        queue.schedule(at: Self.ms(1), Self.event(-7))
        #expect(Self.drain(&queue, now: Self.ms(1)) == [-7])
        #expect(Self.drain(&queue, now: Self.ms(59)) == Array(0..<10_000), "half the burst, in order")
        queue.schedule(at: Self.ms(55), Self.event(-8))
        #expect(queue.earliest == Self.ms(55))
        #expect(Self.drain(&queue, now: Self.ms(100)) == [-8] + Array(10_000..<20_000))
        #expect(queue.isEmpty)
        queue.schedule(at: Self.ms(5), Self.event(1))
        queue.schedule(at: Self.ms(4), Self.event(2))
        #expect(Self.drain(&queue, now: Self.ms(5)) == [2, 1])
    }

    @Test func removeAllEmptiesBothSources() {
        var queue = TimerQueue()
        queue.schedule(at: Self.ms(20), Self.event(1))
        queue.schedule(at: Self.ms(10), Self.event(2))
        queue.removeAll()
        #expect(queue.isEmpty && queue.count == 0 && queue.earliest == nil)
        #expect(queue.popDue(now: Self.ms(100)) == nil)
        queue.schedule(at: Self.ms(30), Self.event(3))
        #expect(Self.drain(&queue, now: Self.ms(30)) == [3])
    }

    @Test(arguments: [1, 2, 3, 4])
    func theQueueAgreesWithASortedModelOverRandomSchedulesAndPops(seed: UInt64) {
        var generator = SeededGenerator(state: seed)
        var queue = TimerQueue()
        /// Pending timers as (deadline ms, insertion number, id); the model pops the least.
        var model: [(deadline: Int, order: Int, id: Int)] = []
        var now = 0
        var nextID = 0
        for step in 0..<20_000 {
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<6:
                // Mostly `now + d` for a few delays (the run), some anywhere ahead (the heap).
                let delay =
                    Bool.random(using: &generator)
                    ? [0, 10, 50].randomElement(using: &generator)!
                    : Int.random(in: 0..<200, using: &generator)
                let count = Int.random(in: 1...5, using: &generator)
                for _ in 0..<count {
                    queue.schedule(at: Self.ms(now + delay), Self.event(nextID))
                    model.append((now + delay, nextID, nextID))
                    nextID += 1
                }
            case 6..<9:
                now += Int.random(in: 0..<30, using: &generator)
                var expected: [Int] = []
                model.sort { ($0.deadline, $0.order) < ($1.deadline, $1.order) }
                while let first = model.first, first.deadline <= now {
                    expected.append(first.id)
                    model.removeFirst()
                }
                let popped = Self.drain(&queue, now: Self.ms(now))
                #expect(popped == expected, "seed \(seed), step \(step)")
                if popped != expected { return }
            default:
                // One pop, if due.
                model.sort { ($0.deadline, $0.order) < ($1.deadline, $1.order) }
                let expected = model.first.flatMap { $0.deadline <= now ? $0.id : nil }
                let popped = queue.popDue(now: Self.ms(now)).map(Self.id(of:))
                #expect(popped == expected, "seed \(seed), step \(step)")
                if expected != nil { model.removeFirst() }
            }
            #expect(queue.count == model.count)
            #expect(queue.earliest == model.map(\.deadline).min().map(Self.ms), "seed \(seed), step \(step)")
        }
        #expect(Self.drain(&queue, now: .seconds(3600)).count == model.count)
        #expect(queue.isEmpty)
    }
}
