import Synchronization
import Testing

@testable import SwiftRex

/// The allocation- and copy-avoiding structures of the per-action path keep their contracts:
/// the mailbox queue's order and ownership, the handler's two cast paths, and effects whose
/// single component is held inline.
@Suite struct HotPathTests {
    /// Counts live instances, so a test can see every item destroyed exactly once.
    final class Tracked: Sendable {
        static let live = Atomic<Int>(0)
        let value: Int
        init(_ value: Int) {
            self.value = value
            Self.live.add(1, ordering: .relaxed)
        }
        deinit { Self.live.subtract(1, ordering: .relaxed) }
    }

    @Test func moveQueueKeepsOrderAcrossGrowthAndReuse() {
        var queue = MoveQueue<Int>()
        for value in 0..<100 { queue.append(value) }
        let queued = queue.count
        #expect(queued == 100)
        var seen: [Int] = []
        while let value = queue.popFirst() { seen.append(value) }
        #expect(seen == Array(0..<100))
        let emptied = queue.isEmpty
        #expect(emptied)
        // Reused after draining: starts from the front again.
        queue.append(7)
        queue.append(8)
        #expect(queue.popFirst() == 7)
        queue.append(9)  // appended while partly consumed
        #expect(queue.popFirst() == 8)
        #expect(queue.popFirst() == 9)
        #expect(queue.popFirst() == nil)
    }

    @Test func moveQueueDestroysEveryItemExactlyOnce() {
        let before = Tracked.live.load(ordering: .relaxed)
        do {
            var queue = MoveQueue<Tracked>()
            for value in 0..<40 { queue.append(Tracked(value)) }
            #expect(queue.popFirst()?.value == 0)  // moved out, then released here
            var other = MoveQueue<Tracked>()
            other.append(Tracked(99))
            queue.swapContents(with: &other)
            let counts = (queue.count, other.count)
            #expect(counts == (1, 39))
            queue.removeAll()  // destroys the one swapped in
            #expect(Tracked.live.load(ordering: .relaxed) == before + 39)
        }  // both queues end here: the 39 left in `other` are destroyed by deinit
        #expect(Tracked.live.load(ordering: .relaxed) == before)
    }

    protocol Shape: Sendable { var sides: Int { get } }
    struct Square: Shape { var sides: Int { 4 } }
    class Animal: @unchecked Sendable { var legs: Int { 0 } }  // immutable: no stored state
    final class Dog: Animal, @unchecked Sendable { override var legs: Int { 4 } }

    @Test func handlerTakesExactTypesAndCastsTheRest() {
        var received: [String] = []
        let exact = ErasedChannelHandler.erasing(ChannelHandler(receive: { (value: Int) in received.append("int \(value)") }, cancel: {}))
        #expect(exact.receive(5))
        #expect(!exact.receive("five"))

        let existential = ErasedChannelHandler.erasing(
            ChannelHandler(receive: { (shape: any Shape) in received.append("sides \(shape.sides)") }, cancel: {}))
        #expect(existential.receive(Square()))  // dynamic type Square, handler type `any Shape`
        #expect(!existential.receive(3))

        let base = ErasedChannelHandler.erasing(
            ChannelHandler(receive: { (animal: Animal) in received.append("legs \(animal.legs)") }, cancel: {}))
        #expect(base.receive(Dog()))  // a subclass instance
        #expect(received == ["int 5", "sides 4", "legs 4"])
    }

    @Test func singleComponentEffectsStayInlineAndCombine() {
        let one = Effect<Int>.just(1)
        #expect(one.componentCount == 1)
        if case .one = one.components.storage {} else { Issue.record("a single component should be held inline") }
        let three = Effect.combine([one, .just(2), .empty, .just(3)])
        #expect(three.componentCount == 3)
        #expect(Effect.combine(.empty, one).componentCount == 1)
        #expect(Effect<Int>.empty.isEmpty)
        #expect(three.map { "\($0)" }.componentCount == 3)
        #expect(one.map { "\($0)" }.componentCount == 1)
    }
}
