public import RexControl

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

    // The SWIM membership.
    /// The membership's timer fired (handed to its channel; the state does not change).
    case membershipTimer
    /// The membership reports a member's status (at `atMs` since the node started): its
    /// publisher, status (the peer's `status` shows dead and left as `gone`, its `membership`
    /// keeps them apart) and incarnation.
    case memberChanged(id: String, endpoint: String, status: Peer.MembershipStatus, incarnation: UInt64, atMs: Int)
}

/// One message as it arrived: its topic, the node that sent it, that node's epoch and sequence
/// number for it, and its value.
public struct Received: Sendable, Equatable {
    public let topic: String
    public let sender: String
    /// Chosen by the sender each time it starts: a new epoch means its sequences start over.
    public let epoch: UInt64
    /// Counts from 1 per sender, epoch and topic.
    public let sequence: UInt64
    public let value: String
    /// A retained value sent to this follower alone in answer to its snapshot request, rather
    /// than a live message (see docs/protocol.md, "Late joiners").
    public let isSnapshot: Bool

    public init(topic: String, sender: String, epoch: UInt64 = 1, sequence: UInt64, value: String, isSnapshot: Bool = false) {
        self.topic = topic
        self.sender = sender
        self.epoch = epoch
        self.sequence = sequence
        self.value = value
        self.isSnapshot = isSnapshot
    }
}
