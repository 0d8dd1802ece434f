import RexControl
import Foundation
import RexNode
import ZMQ

/// Starts a node on free loopback ports with fast timings for tests.
func startNode(
    _ id: String, peers: [String: String] = [:], heartbeatMs: Int = 50, feedIntervalMs: Int = 100, settleMs: Int = 10,
    limits: NodeLimits = NodeLimits()
) throws -> Node {
    try Node.start(
        NodeConfiguration(
            id: id, pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", peers: peers,
            settings: NodeSettings(
                feedIntervalMs: feedIntervalMs, followSettleMs: settleMs, heartbeatIntervalMs: heartbeatMs, limits: limits
            ),
            logLevel: .warning
        )
    )
}

/// Waits until the node's state satisfies `condition`, for at most `timeout` of wall time.
///
/// Driven by the store's observer (called after every batch that changed the state), so it
/// polls nothing and returns as soon as the state does.
@discardableResult
func waitFor(_ node: Node, timeout: Duration = .seconds(30), _ condition: @escaping @Sendable (NodeState) -> Bool) async -> Bool {
    let states = node.store.states   // observing from here on: no change slips between check and wait
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

/// Waits until `condition` holds, checking every 5 ms, for at most `timeout` of wall time: for
/// what the state does not show (sockets, subscriptions at a peer, file descriptors).
@discardableResult
func eventually(_ timeout: Duration = .seconds(5), _ condition: () async -> Bool) async -> Bool {
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
func offPool<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}

/// Sends one raw control request and returns the reply document (nil on timeout).
func controlRequest(_ endpoint: String, _ payload: String, timeout: Duration = .seconds(2)) async throws -> [String: Any]? {
    let reply = try await offPool { try controlRequestBytes(endpoint, payload, timeout: timeout) }
    guard let reply else { return nil }
    return try JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any]
}

private func controlRequestBytes(_ endpoint: String, _ payload: String, timeout: Duration) throws -> [UInt8]? {
    let context = try ZMQContext()
    let socket = try context.socket(.dealer)
    defer {
        socket.close()
        try? context.terminate()
    }
    try socket.setOption(.receiveTimeout, timeout)
    try socket.connect(endpoint)
    _ = try socket.send(payload)
    guard let frames = try? socket.receiveMultipart(), let last = frames.last else { return nil }
    return last
}
