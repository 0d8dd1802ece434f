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
    /// Messages arrived for a follow: the run of them one read of a socket brought, oldest first.
    ///
    /// One action per read rather than per message: a node draining a fast stream then pays for
    /// dispatch, the follow lookup and the state update once per read, not once per message —
    /// the reducer still records every message (count, gaps, last value).
    case received(name: String, messages: [Received])
    /// A peer's heartbeat arrived (at `atMs` since the node started).
    case heartbeat(from: String, sequence: UInt64, atMs: Int)
    /// The heartbeat timer fired: time passed, re-evaluate peer status.
    case tick(nowMs: Int)
}

/// One message as it arrived: its topic, the node that sent it, that node's sequence number
/// for it, and its value.
public struct Received: Sendable, Equatable {
    public let topic: String
    public let sender: String
    public let sequence: UInt64
    public let value: String

    public init(topic: String, sender: String, sequence: UInt64, value: String) {
        self.topic = topic
        self.sender = sender
        self.sequence = sequence
        self.value = value
    }
}
