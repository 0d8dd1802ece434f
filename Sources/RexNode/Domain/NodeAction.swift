/// What can happen to a node: operator commands and the events its channels report.
public enum NodeAction: Sendable, Equatable {
    // Operator commands (accepted on the control endpoint).
    case set(topic: String, value: String)
    case unset(topic: String)
    case follow(name: String, topic: String, from: String?)
    case unfollow(name: String)
    case publish(topic: String, payload: String)
    case addPeer(id: String, endpoint: String)
    case removePeer(id: String)

    // Events reported by channels.
    /// A message arrived for a follow.
    case received(Received)
    /// A peer's heartbeat arrived (at `atMs` since the node started).
    case heartbeat(from: String, sequence: UInt64, atMs: Int)
    /// The heartbeat timer fired: time passed, re-evaluate peer status.
    case tick(nowMs: Int)
}

/// One message delivered to one follow.
public struct Received: Sendable, Equatable {
    public let name: String
    public let topic: String
    public let sender: String
    public let sequence: UInt64
    public let value: String

    public init(name: String, topic: String, sender: String, sequence: UInt64, value: String) {
        self.name = name
        self.topic = topic
        self.sender = sender
        self.sequence = sequence
        self.value = value
    }
}
