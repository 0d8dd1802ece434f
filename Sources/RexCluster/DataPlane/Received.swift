/// One message as it arrived: its topic, the node that sent it, that node's epoch and sequence
/// number for it, and its value.
public struct Received: Sendable, Equatable {
    /// The topic it was published on.
    public let topic: String
    /// The id of the node that published it.
    public let sender: String
    /// Chosen by the sender each time it starts: a new epoch means its sequences start over.
    public let epoch: UInt64
    /// Counts from 1 per sender, epoch and topic.
    public let sequence: UInt64
    /// What was published.
    public let value: String
    /// A retained value sent to this follower alone in answer to its snapshot request, rather
    /// than a live message (see docs/protocol.md, "Late joiners").
    public let isSnapshot: Bool

    /// A message as a transport delivers it (tests build them by hand).
    public init(topic: String, sender: String, epoch: UInt64 = 1, sequence: UInt64, value: String, isSnapshot: Bool = false) {
        self.topic = topic
        self.sender = sender
        self.epoch = epoch
        self.sequence = sequence
        self.value = value
        self.isSnapshot = isSnapshot
    }
}
