/// What a ``Membership`` asks its runtime to do, appended to the caller's buffer by each event.
public enum MembershipDirective: Hashable, Sendable {
    /// Send `message` to `destination` (encode with ``MembershipMessage/encode(into:)``). Best
    /// effort: a lost message is what the protocol is built for.
    case send(MembershipMessage, to: MembershipDestination)
    /// `member` now has this status (or address); `previous` is nil for a member seen the first time.
    case statusChanged(Member, previous: MemberStatus?)
}

/// Where a message goes: a member (`id`) at `address`, or a seed known only by its address.
public struct MembershipDestination: Hashable, Sendable {
    /// The member's id; nil for a seed not known yet.
    public var id: String?
    public var address: String

    /// A destination.
    public init(id: String?, address: String) {
        self.id = id
        self.address = address
    }
}

/// What a ``Membership`` has done and dropped, for metrics.
public struct MembershipCounters: Hashable, Sendable {
    /// Send directives appended.
    public var messagesSent = 0
    /// Messages that decoded (bytes that did not are in `decodeFailures`).
    public var messagesReceived = 0
    /// Bytes that were not a membership message, by reason.
    public var decodeFailures: [MembershipWireError: Int] = [:]
    /// Messages dropped after decoding: from myself, for another cluster member's id, or late.
    public var messagesIgnored = 0
    /// Messages whose claimed sender is not the one the transport authenticated.
    public var senderMismatches = 0
    /// Probes started, and those that ended without an ack (direct or relayed).
    public var probesSent = 0
    public var probesFailed = 0
    /// Ping-requests sent to intermediaries.
    public var pingRequestsSent = 0
    /// Ping-requests refused because `maxPendingRelays` were in flight.
    public var relaysDropped = 0
    /// Joins not answered because `joinRepliesPerPeriod` were sent this period.
    public var joinRepliesDropped = 0
    /// Members not remembered because the table held `maxMembers`, or given with a bad id or address.
    public var membersDropped = 0
    /// Times this member heard itself suspected or declared dead and refuted it.
    public var suspicionsRefuted = 0
    /// Members not taken because their id is not in ``Membership/admittedIDs``.
    public var strangersRefused = 0
    /// Members declared left because their id stopped being admitted (``Membership/admit(_:now:into:)``).
    public var membersRevoked = 0
    /// Messages and updates refused for an incarnation above this member's clock by more than
    /// `MembershipSettings.maxIncarnationLead`.
    public var futureIncarnations = 0

    /// All zero.
    public init() {}

    /// Decode failures of every reason.
    public var totalDecodeFailures: Int { decodeFailures.values.reduce(0, +) }
}
