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

/// Waits until `condition` holds, checking every 5 ms, for at most `timeout` of wall time.
@discardableResult
func eventually(_ timeout: Duration = .seconds(5), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}

/// Open file descriptors of this process.
func openFileDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// Sends one raw control request and returns the reply document (nil on timeout).
func controlRequest(_ endpoint: String, _ payload: String, timeout: Duration = .seconds(2)) throws -> [String: Any]? {
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
    return try JSONSerialization.jsonObject(with: Data(last)) as? [String: Any]
}
