/// One member of the cluster as some member sees it.
///
/// `id` names the member for its whole life; `address` is opaque to the membership (the runtime
/// decides what it means, e.g. a ZeroMQ endpoint). `incarnation` only grows, and only the member
/// itself raises it: that is how it refutes a suspicion or comes back after being declared dead.
public struct Member: Hashable, Sendable, CustomStringConvertible {
    /// The member's name, unique in the cluster (1…``MembershipWire/maxIDBytes`` UTF-8 bytes).
    public var id: String
    /// Where to reach it (1…``MembershipWire/maxAddressBytes`` UTF-8 bytes, opaque here).
    public var address: String
    public var status: MemberStatus
    /// Raised only by the member itself, to refute or to come back.
    public var incarnation: UInt64

    /// A member; alive at incarnation 0 unless told otherwise.
    public init(id: String, address: String, status: MemberStatus = .alive, incarnation: UInt64 = 0) {
        self.id = id
        self.address = address
        self.status = status
        self.incarnation = incarnation
    }

    /// `id@address status #incarnation`, for logs and test failures.
    public var description: String { "\(id)@\(address) \(status) #\(incarnation)" }
}

/// What is believed about a member. Ordered by strength for one incarnation: suspect overrides
/// alive, dead overrides both, left overrides everything; a higher incarnation's alive overrides
/// all of them (the member refuted, or came back).
public enum MemberStatus: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Answers probes.
    case alive = 0
    /// Missed a probe (direct and indirect); declared dead unless it refutes in time.
    case suspect = 1
    /// Stayed suspect past the suspicion timeout. Kept as a tombstone for a while, then forgotten.
    case dead = 2
    /// Announced its own departure (graceful leave). Never probed again.
    case left = 3

    /// Alive or suspect: still probed and counted in the cluster size.
    public var isActive: Bool { self == .alive || self == .suspect }

    /// The status's name as `rexctl` would show it.
    public var description: String {
        switch self {
        case .alive: "alive"
        case .suspect: "suspect"
        case .dead: "dead"
        case .left: "left"
        }
    }
}

/// A piece of gossip: what `member` is, and for a suspicion who suspects it (Lifeguard counts
/// distinct suspecters to shorten the timeout). `suspectedBy` is empty unless the status is suspect.
public struct MemberUpdate: Hashable, Sendable, CustomStringConvertible {
    /// The member as the update's author believes it to be.
    public var member: Member
    /// Who suspects it (suspect only; empty otherwise).
    public var suspectedBy: String

    /// An update; `suspectedBy` is kept only for a suspect.
    public init(_ member: Member, suspectedBy: String = "") {
        self.member = member
        self.suspectedBy = member.status == .suspect ? suspectedBy : ""
    }

    /// The member, and for a suspicion its author.
    public var description: String {
        suspectedBy.isEmpty ? member.description : "\(member) (by \(suspectedBy))"
    }
}
