/// Counters of a ``ClusterActorSystem``: what it sent and ran, and every frame it dropped and why.
public struct ActorSystemMetrics: Sendable, Hashable, Codable {
    /// Calls sent that await a reply.
    public var callsSent = 0
    /// One-way calls handed to the transport.
    public var oneWayCallsSent = 0
    /// Calls received and started (one-way ones included).
    public var callsExecuted = 0
    /// Replies matched to a waiting call.
    public var repliesMatched = 0
    /// Calls failed by their deadline.
    public var deadlinesExpired = 0
    /// Calls failed because their member was declared dead or left.
    public var callsFailedByMembership = 0
    /// Received frames that did not parse (dropped).
    public var malformedFrames = 0
    /// Received frames over ``ClusterActorSystemSettings/maxFrameBytes`` (dropped).
    public var oversizedFrames = 0
    /// Replies from a member other than the one the call went to (dropped; the call keeps waiting).
    public var forgedReplies = 0
    /// Replies to no waiting call: late after a deadline, or never issued (dropped).
    public var unknownReplies = 0
    /// Calls naming a target this node does not have for that actor (answered with an error).
    public var unknownTargets = 0
    /// Calls to an actor this node does not host (answered with an error).
    public var unknownActors = 0
    /// Calls refused because their caller was at ``ClusterActorSystemSettings/maxInboundCallsPerMember``.
    public var inboundRejected = 0
    /// One-way calls that threw, or could not run (unknown actor or target, limit).
    public var oneWayFailures = 0
    /// Remote check-ins refused because the receptionist held its most entries.
    public var receptionRefused = 0
    /// Frames the transport refused (its queue was full).
    public var transportRefusals = 0

    /// All zero.
    public init() {}
}
