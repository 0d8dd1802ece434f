extension MembershipMessage {
    /// Decodes one message, checking every bound of ``MembershipWire``.
    public init(decoding bytes: [UInt8]) throws(MembershipWireError) {
        guard bytes.count <= MembershipWire.maxMessageBytes else { throw .oversized }
        var reader = WireReader(bytes: bytes)
        guard try reader.byte() == MembershipWire.magic else { throw .badMagic }
        guard try reader.byte() == MembershipWire.version else { throw .unsupportedVersion }
        guard let kind = MembershipWire.Kind(rawValue: try reader.byte()) else { throw .unknownKind }
        let sender = try reader.string(limit: MembershipWire.maxIDBytes)
        let senderAddress = try reader.string(limit: MembershipWire.maxAddressBytes)
        let senderIncarnation = try reader.varint()
        let body: Body
        switch kind {
        case .ping: body = .ping(sequence: try reader.uint32())
        case .ack: body = .ack(sequence: try reader.uint32())
        case .nack: body = .nack(sequence: try reader.uint32())
        case .pingRequest:
            let sequence = try reader.uint32()
            let target = try reader.string(limit: MembershipWire.maxIDBytes)
            body = .pingRequest(sequence: sequence, target: target, targetAddress: try reader.string(limit: MembershipWire.maxAddressBytes))
        case .join:
            let flags = try reader.byte()
            body = .join(members: try reader.updates(countBytes: 2, limit: MembershipWire.maxMembersPerMessage), wantsReply: flags & 1 != 0)
        case .joinReply:
            body = .joinReply(members: try reader.updates(countBytes: 2, limit: MembershipWire.maxMembersPerMessage))
        case .gossip:
            body = .gossip
        }
        let gossip = try reader.updates(countBytes: 1, limit: MembershipWire.maxGossipPerMessage)
        guard reader.isAtEnd else { throw .trailingBytes }
        self.init(sender: sender, senderAddress: senderAddress, senderIncarnation: senderIncarnation, body: body, gossip: gossip)
    }
}

/// Reads fields off a byte array; every read checks what is left first.
struct WireReader {
    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func byte() throws(MembershipWireError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint32() throws(MembershipWireError) -> UInt32 {
        guard remaining >= 4 else { throw .truncated }
        var value: UInt32 = 0
        for shift in 0..<4 { value |= UInt32(bytes[offset + shift]) << UInt32(shift * 8) }
        offset += 4
        return value
    }

    mutating func varint() throws(MembershipWireError) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<10 {
            let byte = try byte()
            let bits = UInt64(byte & 0x7F)
            // The tenth byte holds bit 63 only.
            if index == 9 && bits > 1 { throw .badVarint }
            value |= bits << UInt64(index * 7)
            if byte & 0x80 == 0 { return value }
        }
        throw .badVarint
    }

    mutating func string(limit: Int) throws(MembershipWireError) -> String {
        let count = Int(try byte())
        guard count > 0, count <= limit else { throw .badString }
        guard remaining >= count else { throw .truncated }
        defer { offset += count }
        guard let text = String(validating: bytes[offset..<(offset + count)], as: UTF8.self) else { throw .badString }
        return text
    }

    mutating func updates(countBytes: Int, limit: Int) throws(MembershipWireError) -> [MemberUpdate] {
        var count = Int(try byte())
        if countBytes == 2 { count |= Int(try byte()) << 8 }
        guard count <= limit else { throw .tooManyEntries }
        // The smallest update is 5 bytes: no count can make us reserve more than the bytes justify.
        guard count * 5 <= remaining else { throw .truncated }
        var updates: [MemberUpdate] = []
        updates.reserveCapacity(count)
        for _ in 0..<count {
            guard let status = MemberStatus(rawValue: try byte()) else { throw .unknownStatus }
            let incarnation = try varint()
            let id = try string(limit: MembershipWire.maxIDBytes)
            let address = try string(limit: MembershipWire.maxAddressBytes)
            let suspectedBy = status == .suspect ? try string(limit: MembershipWire.maxIDBytes) : ""
            updates.append(
                MemberUpdate(Member(id: id, address: address, status: status, incarnation: incarnation), suspectedBy: suspectedBy))
        }
        return updates
    }
}
