import RexCluster

/// A node process's publisher: numbers each message per topic under the process's epoch, sends
/// it on every attached connection whose subscriptions match (a PUB filters on its side), and
/// keeps feeds' last values to answer snapshot requests.
final class SimPublisher {
    let node: Int
    let sender: String
    let epoch: UInt64
    /// Attached connections, in the order they attached.
    var connections: [SimConnection] = []
    private var sequences: [String: UInt64] = [:]
    private var retained: [String: Received] = [:]
    private let history: History

    init(node: Int, epoch: UInt64, history: History) {
        self.node = node
        self.sender = SimNetwork.id(node)
        self.epoch = epoch
        self.history = history
    }

    /// Publishes `value` on `topic`; returns the message as followers receive it.
    @discardableResult
    func publish(topic: String, value: String) -> Received {
        let sequence = (sequences[topic] ?? 0) &+ 1
        sequences[topic] = sequence
        let message = Received(topic: topic, sender: sender, epoch: epoch, sequence: sequence, value: value)
        history.published(node: node, message)
        for connection in connections where connection.wants(topic) { connection.sendDown(.data(message, snapshotRoute: nil)) }
        return message
    }

    func publishRetained(topic: String, value: String) {
        let message = publish(topic: topic, value: value)
        retained[topic] = message
    }

    func forgetRetained(topic: String) { retained[topic] = nil }

    /// The retained values matching `pattern`, by topic, as snapshot answers.
    func snapshot(of pattern: TopicPattern) -> [Received] {
        retained.keys.sorted().filter { pattern.matches($0) }.map { topic in
            let value = retained[topic]!
            return Received(
                topic: topic, sender: sender, epoch: epoch, sequence: value.sequence, value: value.value, isSnapshot: true)
        }
    }
}
