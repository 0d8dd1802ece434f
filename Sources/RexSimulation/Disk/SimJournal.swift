import RexCluster

/// A node's journal on its ``SimDisk``: one frame per committed batch — a 4-byte little-endian
/// payload length, the payload's CRC-32, then the payload: the batch's action records in the
/// feature catalog's own record codec (`OperatorActionCatalog.appendRecord`, as the node's
/// SQLite journal stores them).
///
/// Recovery reads frames from the start and stops at the first one cut short or failing its
/// checksum: that tail was never acknowledged (an acknowledgement waits for the fsync that
/// covers the whole frame), so it is truncated, and the count of bytes dropped reported.
enum SimJournal {
    /// What a recovery found: every action of the intact frames in order, and the bytes of a
    /// torn tail dropped.
    struct Recovery<Action> {
        var actions: [Action] = []
        var frames = 0
        var discardedBytes = 0
        var malformed: String?
    }

    /// The frame holding `actions`' records (nil when none is journaled).
    static func frame<Action, State>(_ actions: [Action], catalog: OperatorActionCatalog<Action, State>) -> [UInt8]? {
        var payload: [UInt8] = []
        var count = 0
        for action in actions where catalog.appendRecord(action, to: &payload) { count += 1 }
        guard count > 0 else { return nil }
        var frame: [UInt8] = []
        frame.reserveCapacity(payload.count + 8)
        appendWord(UInt32(truncatingIfNeeded: payload.count), to: &frame)
        appendWord(Checksum.crc32(payload), to: &frame)
        frame.append(contentsOf: payload)
        return frame
    }

    /// Reads `bytes` back into actions, up to the first frame cut short, failing its checksum or
    /// not parsing.
    static func recover<Action, State>(_ bytes: [UInt8], catalog: OperatorActionCatalog<Action, State>) -> Recovery<Action> {
        var recovery = Recovery<Action>()
        var offset = 0
        while bytes.count - offset >= 8 {
            let length = Int(word(bytes, at: offset))
            let crc = word(bytes, at: offset + 4)
            guard length <= bytes.count - offset - 8 else { break }
            let payload = Array(bytes[(offset + 8)..<(offset + 8 + length)])
            guard Checksum.crc32(payload) == crc else { break }
            var decoded: [Action] = []
            do {
                try catalog.decodeRecords(payload) { decoded.append($0) }
            } catch {
                recovery.malformed = "\(error)"
                break
            }
            recovery.actions.append(contentsOf: decoded)
            recovery.frames += 1
            offset += 8 + length
        }
        recovery.discardedBytes = bytes.count - offset
        return recovery
    }

    private static func appendWord(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    private static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << UInt32(8 * $1) }
    }
}
