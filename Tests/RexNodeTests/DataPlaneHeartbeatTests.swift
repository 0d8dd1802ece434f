import Testing
import ZMQ

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The data plane carries no ZMTP heartbeats: the SWIM membership drops a dead member's
/// connections, and heartbeats would cost a wake-up and a frame on each of a node's 2 (N − 1)
/// connections every interval.
@Suite struct DataPlaneHeartbeatTests {
    /// An interval of zero is libzmq's "send no PING" (its default; the timeout then never runs).
    @Test func aNodesPublisherAndSharedSubscriberSendNoPings() throws {
        let intervals = try onNodeIO("data-plane-heartbeat-test") { io in
            [try io.publisher.socket.option(.heartbeatInterval), try io.subscriber.shared.option(.heartbeatInterval)]
        }
        #expect(intervals == [.zero, .zero], "publisher and subscriber intervals: \(intervals)")
    }
}
