/// The parameters of a ``Membership``. The defaults target a LAN cluster of 10–500 members with a
/// 100 ms protocol period; ``Membership`` explains how each one bounds detection time and cost.
public struct MembershipSettings: Sendable, Hashable {
    /// One probe per member per period. Detection time and message cost both follow it: each
    /// member sends about 2 messages a period whatever the cluster size.
    public var protocolPeriod: Duration = .milliseconds(100)
    /// How long a direct ping waits for its ack before ping-requests go out; the rest of the
    /// period is left for the indirect round trip (two hops each way). 40 % of the period.
    public var pingTimeout: Duration = .milliseconds(40)
    /// Members asked to probe a target that missed its direct ack (SWIM's k). 3 makes a false
    /// suspicion from one lossy path unlikely (every one of 4 paths has to fail) for 3 extra messages.
    public var indirectProbes: Int = 3
    /// Suspicion timeout floor, in protocol periods × log10(cluster size) (memberlist's
    /// suspicionMult): 0.8 s at N = 100, long enough for a refutation to spread (≈ log₃ N periods).
    public var suspicionMultiplier: Double = 4
    /// The timeout a lone suspicion starts with, as a multiple of the floor (Lifeguard). It falls to
    /// the floor as other members confirm the suspicion independently, so a really dead member is
    /// declared quickly while a single confused prober cannot kill a healthy one fast.
    public var suspicionMaximumMultiplier: Double = 6
    /// Independent confirmations that bring the suspicion timeout down to its floor (Lifeguard's K).
    public var suspicionConfirmations: Int = 2
    /// Each change is piggybacked λ·⌈log10(N + 1)⌉ times by every member that learns it (memberlist's
    /// retransmitMult): about N^-λ chance that a given member never hears it by gossip.
    public var gossipRetransmitMultiplier: Int = 4
    /// Gossip updates piggybacked on one message.
    public var maxGossipPerMessage: Int = 16
    /// Bytes of gossip on one message, so a probe stays one small packet.
    public var maxGossipBytes: Int = 1024
    /// Lifeguard's local health: probe timeouts and the period stretch by (1 + score), the score
    /// rising when this member seems to be the slow one (missed nacks, having to refute) and
    /// falling with each successful probe. 0 turns it off.
    public var maxLocalHealth: Int = 8
    /// Members a graceful leave is sent to at once; gossip carries it to the rest in a few periods.
    public var leaveFanout: Int = 6
    /// Time between join attempts while no seed has answered (jittered by ±50 %).
    public var joinRetryInterval: Duration = .seconds(1)
    /// Between attempts of the cluster (about 10 per interval in all, each member waiting N/10
    /// intervals) to send a table to a random dead member, so a healed partition merges back.
    /// Zero turns it off.
    public var reconnectInterval: Duration = .seconds(2)
    /// How long a dead or left member is remembered: its tombstone stops old gossip from bringing
    /// it back and lets a healed partition find it again.
    public var tombstoneRetention: Duration = .seconds(30)
    /// Join replies sent per protocol period; joins past it are dropped (counted) and retried by
    /// the joiner, so a burst of joins, forged or not, costs a bounded number of large replies.
    public var joinRepliesPerPeriod: Int = 8
    /// Members remembered at most (including tombstones); gossip about more is dropped (counted).
    public var maxMembers: Int = 4096
    /// Ping-requests relayed at once for others; more are dropped (counted).
    public var maxPendingRelays: Int = 64
    /// When set, incarnations are read as start times in milliseconds (as the node runtime makes
    /// them: the wall clock when the member started, raised by one per refutation), and one
    /// more than this lead above this member's own clock — its starting incarnation plus the
    /// time since — is refused (counted): a forged `UInt64.max`, which no member could ever
    /// refute, cannot pin a member dead or left. Nil: no incarnation is refused (a member that
    /// starts from 0). A member whose clock runs further ahead than this is not heard.
    public var maxIncarnationLead: Duration? = nil

    /// The defaults above.
    public init() {}
}
