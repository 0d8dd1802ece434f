/// The binary form of a ``MembershipMessage`` and its bounds.
///
/// Layout (little-endian integers, strings as a 1-byte length then UTF-8 bytes):
///
///     magic 0x53 'S' | version 1 | kind
///     sender id | sender address | sender incarnation (LEB128)
///     body: ping/ack/nack: sequence u32
///           pingRequest: sequence u32, target id, target address
///           join: flags u8 (bit 0 wants reply), count u16, updates
///           joinReply: count u16, updates
///           gossip: nothing
///     gossip count u8, updates
///     update: status u8, incarnation (LEB128, ≤ 10 bytes), id, address, [suspectedBy id if suspect]
///
/// Decoding checks every length against what is left before reading it, so a forged, oversized
/// or truncated message is a ``MembershipWireError`` (never a trap), and nothing is allocated
/// beyond what the message's own (bounded) size justifies.
public enum MembershipWire {
    public static let magic: UInt8 = 0x53
    public static let version: UInt8 = 1
    /// No encoded message is longer (a join reply is split into pages to stay under it).
    public static let maxMessageBytes = 16 * 1024
    /// Bytes of a member id (UTF-8, non-empty).
    public static let maxIDBytes = 64
    /// Bytes of a member address (UTF-8, non-empty).
    public static let maxAddressBytes = 128
    /// Members in one join or join-reply page.
    public static let maxMembersPerMessage = 256
    /// Gossip updates in one message.
    public static let maxGossipPerMessage = 32

    enum Kind: UInt8 {
        case ping = 1, pingRequest, ack, nack, join, joinReply, gossip
    }

    /// Encoded size of one update, for budgeting gossip and pages before encoding.
    public static func encodedSize(of update: MemberUpdate) -> Int {
        var size = 1 + varintSize(update.member.incarnation) + 1 + update.member.id.utf8.count + 1 + update.member.address.utf8.count
        if update.member.status == .suspect { size += 1 + update.suspectedBy.utf8.count }
        return size
    }

    /// Encoded size of a message header (everything but the updates of its gossip and pages).
    static func headerSize(sender: String, senderAddress: String, senderIncarnation: UInt64, body: MembershipMessage.Body) -> Int {
        var size = 3 + 1 + sender.utf8.count + 1 + senderAddress.utf8.count + varintSize(senderIncarnation) + 1
        switch body {
        case .ping, .ack, .nack: size += 4
        case .pingRequest(_, let target, let address): size += 4 + 1 + target.utf8.count + 1 + address.utf8.count
        case .join: size += 3
        case .joinReply: size += 2
        case .gossip: break
        }
        return size
    }

    static func varintSize(_ value: UInt64) -> Int {
        var value = value
        var size = 1
        while value >= 0x80 {
            value >>= 7
            size += 1
        }
        return size
    }

    /// Whether a string is a usable id or address: non-empty and within `limit` UTF-8 bytes.
    public static func fits(_ text: String, limit: Int) -> Bool {
        let count = text.utf8.count
        return count > 0 && count <= limit
    }
}

/// Why bytes are not a membership message.
public enum MembershipWireError: Error, Hashable, Sendable, CaseIterable {
    /// Longer than ``MembershipWire/maxMessageBytes``.
    case oversized
    /// Ends before a field it announces.
    case truncated
    /// Not a membership message (first byte) or a version this build does not speak.
    case badMagic, unsupportedVersion
    /// An unknown message kind or member status.
    case unknownKind, unknownStatus
    /// An id or address that is empty, too long or not UTF-8.
    case badString
    /// More members or gossip updates than a message may carry.
    case tooManyEntries
    /// An incarnation that does not fit 64 bits.
    case badVarint
    /// Bytes after the end of the message.
    case trailingBytes
    /// A field that cannot be encoded within the bounds (encoding side).
    case unencodable
}

extension MembershipWire {
    /// The exact encoded size of `message`.
    public static func encodedSize(ofMessage message: MembershipMessage) -> Int {
        var size = headerSize(
            sender: message.sender, senderAddress: message.senderAddress, senderIncarnation: message.senderIncarnation, body: message.body)
        switch message.body {
        case .join(let members, _), .joinReply(let members): size += members.reduce(0) { $0 + encodedSize(of: $1) }
        default: break
        }
        return size + message.gossip.reduce(0) { $0 + encodedSize(of: $1) }
    }
}
