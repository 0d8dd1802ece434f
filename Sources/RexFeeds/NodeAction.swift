public import RexCluster
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
