/// What the membership says of a member, as the transport reports it to the actor system.
public enum ActorMemberStatus: String, Sendable, Hashable, Codable {
    /// Reachable: calls go out, and it receives this member's receptionist check-ins.
    case alive
    /// Declared dead by the failure detector: its calls fail at once, its actors leave listings.
    case dead
    /// Left the cluster on purpose: as dead, with its own error code.
    case left
}
