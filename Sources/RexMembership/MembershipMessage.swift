/// A message between two members. Every message names its sender with its incarnation (so a
/// reply can be addressed without a lookup, also to a member not known yet, and every message is
/// first-hand evidence that its sender is alive) and piggybacks gossip: that is how membership
/// changes spread, so an idle cluster sends no gossip bytes at all.
///
/// The sender fields are claims: the runtime must authenticate the peer (CURVE) and may check the
/// claimed id against the authenticated one before handing the message to ``Membership``.
public struct MembershipMessage: Hashable, Sendable {
    /// The sender's id (a claim; see above).
    public var sender: String
    /// Where answers to the sender go.
    public var senderAddress: String
    /// The sender's incarnation when it sent the message.
    public var senderIncarnation: UInt64
    public var body: Body
    /// Piggybacked membership changes (at most ``MembershipWire/maxGossipPerMessage``).
    public var gossip: [MemberUpdate]

    /// A message; ``Membership`` builds them, tests and tools may too.
    public init(sender: String, senderAddress: String, senderIncarnation: UInt64 = 0, body: Body, gossip: [MemberUpdate] = []) {
        self.sender = sender
        self.senderAddress = senderAddress
        self.senderIncarnation = senderIncarnation
        self.body = body
        self.gossip = gossip
    }

    /// What the message asks or answers.
    public enum Body: Hashable, Sendable {
        /// A probe: answer with `ack(sequence)`.
        case ping(sequence: UInt32)
        /// Probe `target` on my behalf: `ack(sequence)` back to me if it answers in time, else `nack(sequence)`.
        case pingRequest(sequence: UInt32, target: String, targetAddress: String)
        /// The answer to a ping (direct or relayed by an intermediary).
        case ack(sequence: UInt32)
        /// An intermediary's "the target did not answer me": proves the intermediary and the
        /// path to it work (Lifeguard uses a missing nack as a sign of local trouble).
        case nack(sequence: UInt32)
        /// "Add me; here is what I know" (one page of the sender's table). A fresh joiner sends
        /// only itself; a member reconnecting after a partition sends its table. `wantsReply`
        /// is set on one page only, so a paged join gets one reply.
        case join(members: [MemberUpdate], wantsReply: Bool)
        /// One page of the seed's table in answer to a join.
        case joinReply(members: [MemberUpdate])
        /// Gossip only, no answer expected (used to announce a graceful leave).
        case gossip
    }
}
