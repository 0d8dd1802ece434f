/// The journal's binary form of the operator actions that change a node's state: a tag byte,
/// then each string as a 4-byte little-endian length and its UTF-8 bytes.
///
/// Compact and cheap on purpose (the writer encodes every accepted action, and a restart decodes
/// every one since the last snapshot); decoding trusts nothing: every length is checked against
/// the bytes that remain, and a record that does not parse is an error, never a guess.
enum ActionRecord {
    private enum Tag: UInt8 {
        case set = 1, unset, follow, followFromPeer, unfollow, addPeer, removePeer
    }

    /// True for the actions the journal keeps: those that change the operator-owned part of the
    /// state (`publish` sends one message and leaves nothing behind; the rest are channel events).
    static func isDurable(_ action: NodeAction) -> Bool {
        switch action {
        case .set, .unset, .follow, .unfollow, .addPeer, .removePeer: true
        case .publish, .received, .membershipTimer, .memberChanged: false
        }
    }

    /// Appends `action` to `bytes`; false (and nothing appended) for an action the journal does
    /// not keep.
    @discardableResult
    static func append(_ action: NodeAction, to bytes: inout [UInt8]) -> Bool {
        switch action {
        case .set(let topic, let value): put(.set, [topic, value], &bytes)
        case .unset(let topic): put(.unset, [topic], &bytes)
        case .follow(let name, let topic, nil): put(.follow, [name, topic], &bytes)
        case .follow(let name, let topic, let from?): put(.followFromPeer, [name, topic, from], &bytes)
        case .unfollow(let name): put(.unfollow, [name], &bytes)
        case .addPeer(let id, let endpoint): put(.addPeer, [id, endpoint], &bytes)
        case .removePeer(let id): put(.removePeer, [id], &bytes)
        case .publish, .received, .membershipTimer, .memberChanged: return false
        }
        return true
    }

    private static func put(_ tag: Tag, _ fields: [String], _ bytes: inout [UInt8]) {
        bytes.append(tag.rawValue)
        for field in fields {
            let utf8 = field.utf8
            let count = UInt32(truncatingIfNeeded: utf8.count)
            for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: count >> UInt32(shift))) }
            bytes.append(contentsOf: utf8)
        }
    }

    /// Why bytes are not a sequence of records.
    struct Malformed: Error, Equatable, CustomStringConvertible {
        let offset: Int
        let reason: String
        var description: String { "malformed record at byte \(offset): \(reason)" }
    }

    /// Every record in `bytes`, in order.
    static func decode(_ bytes: [UInt8]) throws(Malformed) -> [NodeAction] {
        var actions: [NodeAction] = []
        try decode(bytes) { actions.append($0) }
        return actions
    }

    /// Calls `body` with every record in `bytes`, in order (no array of them all: a snapshot of
    /// 100,000 follows folds as it is read).
    static func decode(_ bytes: [UInt8], _ body: (NodeAction) -> Void) throws(Malformed) {
        var reader = Reader(bytes: bytes)
        while reader.offset < bytes.count {
            let start = reader.offset
            guard let tag = Tag(rawValue: bytes[start]) else { throw Malformed(offset: start, reason: "unknown tag \(bytes[start])") }
            reader.offset += 1
            switch tag {
            case .set: body(.set(topic: try reader.string(), value: try reader.string()))
            case .unset: body(.unset(topic: try reader.string()))
            case .follow: body(.follow(name: try reader.string(), topic: try reader.string(), from: nil))
            case .followFromPeer: body(.follow(name: try reader.string(), topic: try reader.string(), from: try reader.string()))
            case .unfollow: body(.unfollow(name: try reader.string()))
            case .addPeer: body(.addPeer(id: try reader.string(), endpoint: try reader.string()))
            case .removePeer: body(.removePeer(id: try reader.string()))
            }
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func string() throws(Malformed) -> String {
            guard bytes.count - offset >= 4 else { throw Malformed(offset: offset, reason: "a length is cut short") }
            var count = 0
            for index in 0..<4 { count |= Int(bytes[offset + index]) << (8 * index) }
            offset += 4
            guard count <= bytes.count - offset else {
                throw Malformed(offset: offset - 4, reason: "a string of \(count) bytes where \(bytes.count - offset) remain")
            }
            let slice = bytes[offset..<(offset + count)]
            offset += count
            guard let text = String(validating: slice, as: UTF8.self) else {
                throw Malformed(offset: offset - count, reason: "a string that is not UTF-8")
            }
            return text
        }
    }
}
