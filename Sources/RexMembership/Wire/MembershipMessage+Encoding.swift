extension MembershipMessage {
    /// Appends the wire form to `bytes` (reusable buffer). Throws ``MembershipWireError/unencodable``
    /// when a field breaks a bound; the machine never builds such a message (it keeps every
    /// string it learns within the bounds and pages its tables), so this is the last check.
    public func encode(into bytes: inout [UInt8]) throws(MembershipWireError) {
        let start = bytes.count
        do throws(MembershipWireError) {
            bytes.append(MembershipWire.magic)
            bytes.append(MembershipWire.version)
            bytes.append(kind.rawValue)
            try bytes.appendString(sender, limit: MembershipWire.maxIDBytes)
            try bytes.appendString(senderAddress, limit: MembershipWire.maxAddressBytes)
            bytes.appendVarint(senderIncarnation)
            switch body {
            case .ping(let sequence), .ack(let sequence), .nack(let sequence):
                bytes.appendUInt32(sequence)
            case .pingRequest(let sequence, let target, let targetAddress):
                bytes.appendUInt32(sequence)
                try bytes.appendString(target, limit: MembershipWire.maxIDBytes)
                try bytes.appendString(targetAddress, limit: MembershipWire.maxAddressBytes)
            case .join(let members, let wantsReply):
                bytes.append(wantsReply ? 1 : 0)
                try bytes.appendUpdates(members, countBytes: 2, limit: MembershipWire.maxMembersPerMessage)
            case .joinReply(let members):
                try bytes.appendUpdates(members, countBytes: 2, limit: MembershipWire.maxMembersPerMessage)
            case .gossip:
                break
            }
            try bytes.appendUpdates(gossip, countBytes: 1, limit: MembershipWire.maxGossipPerMessage)
            guard bytes.count - start <= MembershipWire.maxMessageBytes else { throw .unencodable }
        } catch {
            bytes.removeSubrange(start...)
            throw error
        }
    }

    var kind: MembershipWire.Kind {
        switch body {
        case .ping: .ping
        case .pingRequest: .pingRequest
        case .ack: .ack
        case .nack: .nack
        case .join: .join
        case .joinReply: .joinReply
        case .gossip: .gossip
        }
    }

    /// The wire form in a new array.
    public func encoded() throws(MembershipWireError) -> [UInt8] {
        var bytes: [UInt8] = []
        try encode(into: &bytes)
        return bytes
    }
}

extension [UInt8] {
    mutating func appendUInt32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }

    mutating func appendString(_ text: String, limit: Int) throws(MembershipWireError) {
        guard MembershipWire.fits(text, limit: limit) else { throw .unencodable }
        append(UInt8(text.utf8.count))
        append(contentsOf: text.utf8)
    }

    mutating func appendUpdates(_ updates: [MemberUpdate], countBytes: Int, limit: Int) throws(MembershipWireError) {
        guard updates.count <= limit else { throw .unencodable }
        append(UInt8(truncatingIfNeeded: updates.count))
        if countBytes == 2 { append(UInt8(truncatingIfNeeded: updates.count >> 8)) }
        for update in updates {
            append(update.member.status.rawValue)
            appendVarint(update.member.incarnation)
            try appendString(update.member.id, limit: MembershipWire.maxIDBytes)
            try appendString(update.member.address, limit: MembershipWire.maxAddressBytes)
            if update.member.status == .suspect { try appendString(update.suspectedBy, limit: MembershipWire.maxIDBytes) }
        }
    }
}
