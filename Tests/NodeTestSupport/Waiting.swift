import Foundation
import RexCluster
import RexControl
public import RexFeeds
public import RexNode

// Waiting in tests that run real nodes: on the store's observer where the state shows what is
// awaited, by polling only where it does not, and never by blocking the cooperative pool.

/// Waits until the node's state satisfies `condition`, for at most `timeout` of wall time.
///
/// Driven by the store's observer (called after every batch that changed the state), so it
/// polls nothing and returns as soon as the state does.
@discardableResult
public func waitFor(_ node: Node<NodeFeature>, timeout: Duration = .seconds(30), _ condition: @escaping @Sendable (NodeState) -> Bool) async
    -> Bool
{
    let states = node.store.states  // observing from here on: no change slips between check and wait
    if condition(node.state) { return true }
    return await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            for await state in states where condition(state) { return true }
            return false
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return false
        }
        let satisfied = await group.next() ?? false
        group.cancelAll()
        return satisfied || condition(node.state)
    }
}

/// Waits until every subscription `follower` sent so far on its shared socket has reached
/// `publisher`'s publisher, by an event rather than a poll of the publisher.
///
/// `publisher` retains a value under `marker` and `follower` follows it: a follower asks for a
/// follow's snapshot after the follow's subscription, on the same socket behind every directive
/// queued before it, and a publisher reads them in order, so the snapshot's arrival means
/// everything before it arrived. The follower is idle first, so the marker's follow settles
/// after every follow dispatched before it. The marker's own subscription stays: unfollow it
/// before the next marker to see it gone.
public func waitUntilSubscriptionsArrive(from follower: Node<NodeFeature>, at publisher: Node<NodeFeature>, marker: String) async -> Bool {
    publisher.dispatch(.set(topic: marker, value: "marker"))
    guard await waitFor(publisher, { $0.feeds[marker] != nil }) else { return false }
    await follower.store.waitUntilIdle()
    follower.dispatch(.follow(name: marker, topic: marker, from: nil))
    return await waitFor(follower) { $0.follows[marker]?.lastValue == "marker" }
}

/// Waits until `condition` holds, checking every 5 ms, for at most `timeout` of wall time: for
/// what the state does not show (sockets, subscriptions at a peer, file descriptors).
@discardableResult
public func eventually(_ timeout: Duration = .seconds(5), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}

/// Runs blocking work (a socket waiting for a reply) on a thread of its own, so it never holds
/// one of the cooperative pool's threads: the pool has one per core, and a node answers some
/// control requests through a task on it.
public func offPool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}
