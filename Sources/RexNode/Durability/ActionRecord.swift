import RexCluster
import RexControl
import RexFeeds

/// The journal's binary form of the operator actions that change a node's state: the action's
/// tag byte (its description's `JournalTags`), then each field as a 4-byte little-endian length
/// and its UTF-8 bytes (an optional last field left out when none, under the other tag).
///
/// Compact and cheap on purpose (the writer encodes every accepted action, and a restart decodes
/// every one since the last snapshot); decoding trusts nothing: every length is checked against
/// the bytes that remain, and a record that does not parse is an error, never a guess.
enum ActionRecord {
    /// The node's actions and their tags.
    static var catalog: OperatorActionCatalog<NodeAction, NodeState> { NodeFeature.operatorActions }

    /// True for the actions the journal keeps: those that change the operator-owned part of the
    /// state (`publish` sends one message and leaves nothing behind; the rest are channel events).
    static func isDurable(_ action: NodeAction) -> Bool {
        catalog.isJournaled(action)
    }

    /// Appends `action` to `bytes`; false (and nothing appended) for an action the journal does
    /// not keep.
    @discardableResult
    static func append(_ action: NodeAction, to bytes: inout [UInt8]) -> Bool {
        guard let (description, values) = catalog.describe(action), let tags = description.journal else { return false }
        // The catalog checked that an action with an optional last field has a tag for it.
        if description.fields.last?.isOptional == true, case .some(.some) = values.last, let tag = tags.withOptionalField {
            bytes.append(tag)
        } else {
            bytes.append(tags.tag)
        }
        for value in values {
            guard let value else { continue }
            let utf8 = value.utf8
            let count = UInt32(truncatingIfNeeded: utf8.count)
            for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: count >> UInt32(shift))) }
            bytes.append(contentsOf: utf8)
        }
        return true
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
        let catalog = self.catalog
        var reader = Reader(bytes: bytes)
        var values: [String?] = []
        while reader.offset < bytes.count {
            let start = reader.offset
            guard let (index, withOptionalField) = catalog.recordByTag[bytes[start]] else {
                throw Malformed(offset: start, reason: "unknown tag \(bytes[start])")
            }
            reader.offset += 1
            let description = catalog.actions[index]
            values.removeAll(keepingCapacity: true)
            for field in description.fields {
                values.append(field.isOptional && !withOptionalField ? nil : try reader.string())
            }
            body(description.make(values))
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
