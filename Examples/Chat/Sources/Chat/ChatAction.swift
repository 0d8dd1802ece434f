public import RexCluster

/// What happens to a chat node: an operator's join or leave, and what the cluster tells it.
public enum ChatAction: Sendable, Equatable {
    /// An operator's: `member` joined `room` on this node.
    case join(room: String, member: String)
    /// An operator's: `member` left `room` on this node.
    case leave(room: String, member: String)
    /// Rosters other nodes published for `room`, as its follow delivered them.
    case rosters(room: String, [Received])
    /// The membership's word on another member (joined, suspect, dead, left, back).
    case memberChanged(MemberReport)
    /// The membership's timer (only with an in-memory transport, which has no timer of its own).
    case membershipTimer
}
