import Foundation
import NodeTestSupport
import RexCluster
import RexControl
import RexFeeds
import RexNode
import ZMQ

/// Starts a node on free loopback ports with fast timings for tests; `peers` are running nodes
/// it knows from the start (members of its SWIM membership).
func startNode(
    _ id: String, peers: [String: Node] = [:], feedIntervalMs: Int = 100, settleMs: Int = 10, limits: NodeLimits = NodeLimits()
) throws -> Node {
    var configuration = NodeConfiguration(
        id: id, pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
        settings: NodeSettings(feedIntervalMs: feedIntervalMs, followSettleMs: settleMs, limits: limits), logLevel: .warning)
    for (peer, node) in peers { configuration.addPeer(peer, pub: node.pubEndpoint, membership: node.membershipEndpoint) }
    return try Node.start(configuration)
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
