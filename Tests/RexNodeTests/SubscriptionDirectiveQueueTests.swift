import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The shared subscriber's held-back directives come out byte for byte, in order, once.
@Suite struct SubscriptionDirectiveQueueTests {
    private typealias Directive = SubscriptionTable<RouteTarget>.Directive

    private func append(_ directive: Directive, to queue: inout SubscriptionDirectiveQueue) {
        switch directive {
        case .subscribe(let bytes): bytes.withUnsafeBytes { queue.append(.subscribe, $0) }
        case .unsubscribe(let bytes): bytes.withUnsafeBytes { queue.append(.unsubscribe, $0) }
        }
    }

    private func drained(_ queue: inout SubscriptionDirectiveQueue) -> [Directive] {
        var directives: [Directive] = []
        queue.drain { directives.append(Directive($0, $1)) }
        return directives
    }

    @Test func drainsEveryDirectiveOnceInOrderAndEmpties() {
        var queue = SubscriptionDirectiveQueue()
        let directives: [Directive] = [
            .unsubscribe(Array("$snap.7.1\0a\0".utf8)), .unsubscribe(Array("a\0".utf8)), .subscribe(Array("b\0".utf8)),
            .subscribe([]), .subscribe(Array("$snap.7.2\0b\0".utf8)),
        ]
        for directive in directives { append(directive, to: &queue) }
        #expect(queue.count == 5 && !queue.isEmpty)
        #expect(drained(&queue) == directives)
        #expect(queue.isEmpty)
        #expect(drained(&queue).isEmpty)
        // Used again after a drain: only the new directives come out.
        append(.subscribe(Array("c".utf8)), to: &queue)
        #expect(drained(&queue) == [.subscribe(Array("c".utf8))])
    }

    @Test func isFullAtOneBatch() {
        var queue = SubscriptionDirectiveQueue()
        for index in 0..<(SubscriptionDirectiveQueue.batch - 1) {
            append(.subscribe(Array("t\(index)\0".utf8)), to: &queue)
            #expect(!queue.isFull)
        }
        append(.subscribe(Array("last\0".utf8)), to: &queue)
        #expect(queue.isFull)
        #expect(drained(&queue).count == SubscriptionDirectiveQueue.batch)
        #expect(!queue.isFull)
    }

    /// Hostile input is normal input: a burst of routes in one reactor turn (a flood of follows,
    /// or every follow restored at start opening in the first reconcile) keeps at most a batch
    /// and one route's directives waiting, whatever the turn's end would flush.
    @Test func aBurstOfRoutesInOneTurnKeepsAtMostABatchWaiting() throws {
        let (largest, subscriptions) = try onNodeIO("directive-queue-test") { io in
            for index in 0..<1_000 { _ = io.subscriber.addRoute(.exact("burst.\(index)"), snapshot: true) { _ in } }
            return (io.subscriber.largestQueuedDirectives, io.subscriber.sharedSubscriptionCount)
        }
        #expect(subscriptions == 1_000)
        // Each route queues its topic and its snapshot request: 2,000 directives in the turn.
        #expect(largest <= SubscriptionDirectiveQueue.batch + 1, "at most \(largest) waited")
        #expect(largest >= SubscriptionDirectiveQueue.batch, "the batches were full before they went")
    }
}
