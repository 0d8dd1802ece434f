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
    public var id: String?
    public var address: String

    public init(id: String?, address: String) {
        self.id = id
        self.address = address
    }
}

/// What a ``Membership`` has done and dropped, for metrics.
public struct MembershipCounters: Hashable, Sendable {
    public var messagesSent = 0
    public var messagesReceived = 0
    /// Bytes that were not a membership message, by reason.
    public var decodeFailures: [MembershipWireError: Int] = [:]
    /// Messages dropped after decoding: from myself, for another cluster member's id, or late.
    public var messagesIgnored = 0
    /// Messages whose claimed sender is not the one the transport authenticated.
    public var senderMismatches = 0
    public var probesSent = 0
    public var probesFailed = 0
    public var pingRequestsSent = 0
    public var relaysDropped = 0
    public var joinRepliesDropped = 0
    public var membersDropped = 0
    public var suspicionsRefuted = 0

    public init() {}

    public var totalDecodeFailures: Int { decodeFailures.values.reduce(0, +) }
}
