import RexCluster
import ZMQ

/// One follow `from` one peer: a SUB socket of its own, connected to that peer's publisher
/// only, and where its messages go. Owned by the `NodeSubscriber` on the reactor thread.
final class DedicatedSubscription {
    let socket: ZMQSocket
    var reader: ReaderToken?
    /// The publisher it is connected to.
    let endpoint: String
    let pattern: TopicPattern
    let target: RouteTarget
    let id: RouteID

    init(socket: ZMQSocket, endpoint: String, pattern: TopicPattern, target: RouteTarget, id: RouteID) {
        self.socket = socket
        self.endpoint = endpoint
        self.pattern = pattern
        self.target = target
        self.id = id
    }
}
