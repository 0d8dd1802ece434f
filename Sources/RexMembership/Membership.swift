#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SWIM-style membership of one member: failure detection by probing, dissemination by gossip,
/// join through seeds and graceful leave, as a pure state machine.
///
/// The machine does no I/O and reads no clock: the runtime feeds it events — ``tick(now:into:)``
/// (at least at ``nextDeadline``), `receive(_:from:now:into:)` for each message (bytes or decoded), ``join(seeds:now:into:)``,
/// ``leave(now:into:)`` — with a monotonic `now` (a `Duration` since any fixed origin), and
/// carries out the ``MembershipDirective``s each event appends to its buffer. Its only randomness
/// is a ``MembershipRandom`` seeded at `init`, so a run replays exactly from its seed.
///
/// ## Protocol
/// - **Probe**: every protocol period the member pings the next member of a shuffled
///   round-robin order (every member is probed by each other within 2N periods; new members are
///   inserted at a random place). No ack within `pingTimeout` → `indirectProbes` (k) other
///   members are asked to ping it (ping-request); they relay the ack or answer a nack. No ack by
///   the end of the period → the target is **suspect**, and the prober tells the target so
///   directly (if only its paths to it were lossy, the target refutes before the news spreads).
/// - **Suspicion** (Lifeguard): a suspect is declared **dead** when its timeout runs out without
///   a refutation. The timeout starts at `suspicionMaximumMultiplier` × the floor
///   (`suspicionMultiplier` × log10 N periods) and falls to the floor as independent members
///   report the same suspicion (`suspicionConfirmations` of them), so one confused prober
///   cannot kill a healthy member fast while a crashed member (suspected by each of its probers
///   in turn) is declared dead close to the floor.
/// - **Refutation**: a member that hears itself suspect or dead raises its incarnation and
///   gossips `alive` at the new incarnation, which overrides the suspicion everywhere. Precedence
///   for one incarnation: alive < suspect < dead < left; any higher incarnation's alive wins.
/// - **First-hand evidence**: every message carries its sender's incarnation; a message from a
///   member not known adds it, and a member held dead that speaks is sent its tombstone so it
///   refutes (this heals views that missed a refutation whose gossip has run out).
/// - **Gossip**: every change a member accepts is piggybacked on its next messages, at most
///   `maxGossipPerMessage` updates and `maxGossipBytes` per message, least-sent first (a rumour
///   about the recipient goes first so it can refute at once), each λ·⌈log10(N+1)⌉ times. A change
///   reaches all N members in O(log N) periods with about 2 messages per member per period.
/// - **Join**: a joiner sends `join` to its seeds until one answers; a seed adds it, gossips it
///   and answers with its whole table in pages of bounded size.
/// - **Leave**: the member marks itself `left` (higher incarnation), tells `leaveFanout` members
///   at once and keeps answering probes while the runtime lets it run; gossip does the rest.
/// - **Partitions**: members declared dead are remembered (`tombstoneRetention`); every
///   `reconnectInterval` a member sends its table to one of them. When a partition heals both
///   sides exchange tables; a table saying "dead" only makes the receiver *suspect* (so the
///   member concerned gets a chance to refute), and refutations then merge the two sides.
/// - **Local health** (Lifeguard): a member that misses nacks or has to refute a suspicion about
///   itself is probably the slow one; it stretches its own period and timeouts by (1 + score)
///   instead of suspecting healthy peers.
///
/// ## Guarantees (under the model: messages may be lost, delayed or reordered, members crash)
/// - A crashed member is suspected within a few periods and seen dead by every member after
///   about one suspicion timeout plus O(log N) periods: `membench` measures 1.2 s median, 1.4 s
///   worst at N = 100 and 1.6 / 1.8 s at N = 500 with the defaults.
/// - A live member that answers again before the suspicion timeout (paused, or behind a lossy
///   path) refutes and is not declared dead (no false death in 5 × 30 s at N = 100 with 10 %
///   message loss).
/// - One change reaches all members in O(log N) periods (4.5 at N = 100, 5.8 at N = 500).
/// - Cost per member is flat in N when nothing fails: one ping and its ack per period (2
///   messages, ≈ 46 bytes, ≈ 2 µs of this machine's time); k ping-requests and their answers on a
///   missed ack; gossip bytes per message are bounded. Under loss the cluster-wide rate of (false)
///   suspicions grows with N and each one is gossiped to all, so per-member gossip grows with N.
/// - Every input is bounded: decoding checks every bound of ``MembershipWire``, the table holds at
///   most `maxMembers`, relays and join replies are capped, all drops are counted in ``counters``.
///   Sender ids are claims: the runtime authenticates peers (CURVE) before feeding messages.
///
/// ## Hosting it
/// - Arm one timer at ``nextDeadline`` and call ``tick(now:into:)`` when it fires (or sooner);
///   after every event, carry out the directives and clear the buffer (keeping its capacity).
/// - `.send`: encode into a reusable buffer and send best effort, point to point (drop rather than
///   block when a peer's queue is full; cap the socket's message size at
///   ``MembershipWire/maxMessageBytes``). A destination without an id is a seed.
/// - Received bytes go to `receive` with the id the transport authenticated, if it has one.
/// - `.statusChanged`: the node's view of its peers (alive → connect the data plane, dead or
///   left → disconnect).
/// - Start at an incarnation that grows across restarts (e.g. the node's epoch), so a restarted
///   member overrides its own tombstone at once; on SIGTERM call ``leave(now:into:)``, send, and
///   keep serving for a period or two before exiting.
public struct Membership: Sendable {
    public let settings: MembershipSettings
    /// This member as it announces itself.
    public internal(set) var me: Member
    /// The incarnation this member started with: with `settings.maxIncarnationLead`, what the
    /// highest incarnation taken is measured from.
    let startIncarnation: UInt64
    public internal(set) var counters = MembershipCounters()
    /// Lifeguard's local health score (0 = healthy); timeouts stretch by (1 + score).
    public internal(set) var localHealth = 0
    /// False from ``join(seeds:now:into:)`` until a seed answers.
    public internal(set) var isJoined = true
    /// When set, the only ids this member remembers: gossip, tables and messages naming any
    /// other member are not taken (counted in `strangersRefused`). A secured cluster sets it to
    /// the ids that hold a key, so a member, even one whose key was stolen, cannot bring in a
    /// stranger by gossip. Nil: anyone who can reach the membership can join (a plain cluster).
    public var admittedIDs: Set<String>?

    struct Record {
        var member: Member
        var suspicion: Suspicion?
        /// When the status last changed (tombstones expire from it).
        var since: Duration
        /// When a message of the member's own last arrived (see `apply`: a death notice about a
        /// member heard from just now only makes us suspect it).
        var lastHeard: Duration?
    }

    struct Suspicion {
        var started: Duration
        /// Distinct members that reported it, the first one included.
        var suspecters: [String]
        var deadline: Duration
    }

    struct Probe {
        var target: String
        var address: String
        var sequence: UInt32
        var indirectAt: Duration
        var endsAt: Duration
        var indirectSent: Int?
        var nacks = 0
    }

    struct Relay {
        var sequence: UInt32
        var requester: MembershipDestination
        var requesterSequence: UInt32
        var deadline: Duration
    }

    var records: [Record] = []
    var index: [String: Int] = [:]
    /// Records per status (`MemberStatus.rawValue`), this member excluded.
    var statusCounts = [0, 0, 0, 0]
    var suspects: [String] = []
    /// Dead and left members in the order they got there (entries may be stale: checked on expiry).
    var tombstones: [(id: String, since: Duration)] = []
    var tombstoneHead = 0
    var probeOrder: [String] = []
    var probeCursor = 0
    var probe: Probe?
    var relays: [Relay] = []
    var rumours = RumourQueue()
    var random: MembershipRandom
    var sequence: UInt32 = 0
    var nextProbeAt: Duration?
    var seeds: [String] = []
    var nextJoinAt: Duration?
    var nextReconnectAt: Duration?
    var joinRepliesThisPeriod = 0

    /// A member `id` reachable at `address` (both non-empty UTF-8 within ``MembershipWire``'s
    /// bounds, else nil). `incarnation` should be above any this id used before if the runtime
    /// remembers it (else the member refutes its own old tombstone when it hears of it).
    public init?(id: String, address: String, incarnation: UInt64 = 0, settings: MembershipSettings = MembershipSettings(), seed: UInt64) {
        guard MembershipWire.fits(id, limit: MembershipWire.maxIDBytes), MembershipWire.fits(address, limit: MembershipWire.maxAddressBytes)
        else {
            return nil
        }
        self.settings = settings
        self.me = Member(id: id, address: address, status: .alive, incarnation: incarnation)
        self.startIncarnation = incarnation
        self.random = MembershipRandom(seed: seed)
    }

    // MARK: - Reading

    /// Every other member known, tombstones included.
    public var members: [Member] { records.map(\.member) }

    public func member(_ id: String) -> Member? { index[id].map { records[$0].member } }

    /// Alive and suspect members, this one included while it has not left: the N of the formulas.
    public var activeCount: Int { statusCounts[0] + statusCounts[1] + (me.status == .left ? 0 : 1) }

    /// Number of other members with `status`.
    public func count(_ status: MemberStatus) -> Int { statusCounts[Int(status.rawValue)] }

    /// Updates still to be piggybacked.
    public var pendingGossip: Int { rumours.count }

    /// The latest `now` by which ``tick(now:into:)`` must run for timeouts to fire on time (the
    /// runtime arms one timer on it). Nil before the first tick (tick at once) and when nothing is
    /// pending (after a leave).
    public var nextDeadline: Duration? {
        guard let nextProbeAt else { return nil }
        var deadline: Duration? = nil
        func consider(_ time: Duration) { deadline = deadline.map { min($0, time) } ?? time }
        if me.status != .left {
            // The next probe waits for the current one to finish.
            if let probe { consider(probe.indirectSent == nil ? probe.indirectAt : probe.endsAt) } else { consider(nextProbeAt) }
        }
        for relay in relays { consider(relay.deadline) }
        for id in suspects {
            if let position = index[id], let suspicion = records[position].suspicion { consider(suspicion.deadline) }
        }
        if tombstoneHead < tombstones.count { consider(tombstones[tombstoneHead].since + settings.tombstoneRetention) }
        if let nextJoinAt { consider(nextJoinAt) }
        if let nextReconnectAt, count(.dead) > 0, me.status != .left { consider(nextReconnectAt) }
        return deadline
    }

    // MARK: - Derived parameters

    /// Times each member piggybacks one change: λ·⌈log10(N + 1)⌉.
    var retransmitLimit: Int {
        var digits = 1
        var power = 10
        let n = activeCount + 1
        while power < n && digits < 18 {
            power *= 10
            digits += 1
        }
        return max(1, settings.gossipRetransmitMultiplier * digits)
    }

    /// The suspicion timeout after `confirmations` independent reports beyond the first.
    func suspicionTimeout(confirmations: Int) -> Duration {
        let floor = settings.protocolPeriod * (settings.suspicionMultiplier * max(1, log10(Double(activeCount))))
        let ceiling = floor * max(1, settings.suspicionMaximumMultiplier)
        let expected = settings.suspicionConfirmations
        guard expected > 0, confirmations > 0 else { return confirmations > 0 ? floor : ceiling }
        let fraction = log(Double(confirmations) + 1) / log(Double(expected) + 1)
        let timeout = ceiling - (ceiling - floor) * fraction
        return max(floor, timeout)
    }

    /// The highest incarnation taken at `now` (see `MembershipSettings.maxIncarnationLead`);
    /// nil: any. Saturating: a lead past `UInt64.max` takes every incarnation.
    func incarnationCeiling(now: Duration) -> UInt64? {
        guard let lead = settings.maxIncarnationLead else { return nil }
        let (seconds, attoseconds) = (now + lead).components
        guard seconds >= 0 else { return startIncarnation }
        let (scaled, overflowed) = UInt64(seconds).multipliedReportingOverflow(by: 1000)
        let (milliseconds, carried) = scaled.addingReportingOverflow(UInt64(max(0, attoseconds) / 1_000_000_000_000_000))
        let (ceiling, exceeded) = startIncarnation.addingReportingOverflow(milliseconds)
        return overflowed || carried || exceeded ? .max : ceiling
    }

    /// `duration` stretched by the local health score.
    func scaled(_ duration: Duration) -> Duration { duration * (1 + localHealth) }
}
