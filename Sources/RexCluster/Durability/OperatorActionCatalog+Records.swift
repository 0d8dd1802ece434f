/// The journal's binary form of a catalog's journaled actions: the action's tag byte (its
/// description's `JournalTags`), then each field as a 4-byte little-endian length and its UTF-8
/// bytes (an optional last field left out when none, under the other tag).
///
/// Compact and cheap on purpose (the writer encodes every accepted action, and a restart decodes
/// every one since the last snapshot); decoding trusts nothing: every length is checked against
/// the bytes that remain, and a record that does not parse is an error, never a guess.
extension OperatorActionCatalog {
    /// Appends `action`'s record to `bytes`; false (and nothing appended) for an action the
    /// journal does not keep.
    @discardableResult
    public func appendRecord(_ action: Action, to bytes: inout [UInt8]) -> Bool {
        guard let (description, values) = describe(action), let tags = description.journal else { return false }
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

    /// Calls `body` with the action of every record in `bytes`, in order (no array of them all:
    /// a snapshot of 100,000 follows folds as it is read).
    public func decodeRecords(_ bytes: [UInt8], _ body: (Action) -> Void) throws(MalformedRecord) {
        var reader = RecordReader(bytes: bytes)
        var values: [String?] = []
        while reader.offset < bytes.count {
            let start = reader.offset
            guard let (index, withOptionalField) = recordByTag[bytes[start]] else {
                throw MalformedRecord(offset: start, reason: "unknown tag \(bytes[start])")
            }
            reader.offset += 1
            let description = actions[index]
            values.removeAll(keepingCapacity: true)
            for field in description.fields {
                values.append(field.isOptional && !withOptionalField ? nil : try reader.string())
            }
            body(description.make(values))
        }
    }
}

/// Why bytes are not a sequence of action records.
public struct MalformedRecord: Error, Equatable, CustomStringConvertible {
    /// Where in the bytes the bad record starts.
    public let offset: Int
    /// What is wrong with it.
    public let reason: String
    public var description: String { "malformed record at byte \(offset): \(reason)" }
}

private struct RecordReader {
    let bytes: [UInt8]
    var offset = 0

    mutating func string() throws(MalformedRecord) -> String {
        guard bytes.count - offset >= 4 else { throw MalformedRecord(offset: offset, reason: "a length is cut short") }
        var count = 0
        for index in 0..<4 { count |= Int(bytes[offset + index]) << (8 * index) }
        offset += 4
        guard count <= bytes.count - offset else {
            throw MalformedRecord(offset: offset - 4, reason: "a string of \(count) bytes where \(bytes.count - offset) remain")
        }
        let slice = bytes[offset..<(offset + count)]
        offset += count
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw MalformedRecord(offset: offset - count, reason: "a string that is not UTF-8")
        }
        return text
    }
}
