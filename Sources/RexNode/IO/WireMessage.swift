import RexControl
import ZMQ

#if canImport(Glibc)
import Glibc
import RexCluster
#endif

/// How a message travels between nodes: `[topic\0sender epoch sequence, value]`.
///
/// The first frame starts with the topic and a NUL (what subscriptions match), followed by the
/// header; two frames per message, like a plain `[topic, payload]` PUB/SUB stream. A snapshot
/// message (a retained value sent to one late joiner) carries the same head behind its
/// request's tag: `$snap.<epoch>.<route>\0topic\0sender epoch sequence`.
///
/// Everything here reads bytes a peer chose: every length is bounded by `WireLimits`, every
/// number is checked for overflow, and anything else is a counted drop, never a trap.
enum WireMessage {
    /// Topics starting with `$` are the node's own (snapshots): operators cannot set or publish
    /// them.
    static let reservedPrefix = ActionField.reservedTopicPrefix
    static let snapshotPrefix = "$snap."

    /// The most bytes `encodeHead` writes after its prefix: a `UInt64` has at most 20 digits.
    static let sequenceCapacity = 20

    /// The part of the first frame that stays the same for every message of one topic from one
    /// sender in one epoch: `topic\0sender epoch ` (only the sequence follows).
    static func headPrefix(topic: String, sender: String, epoch: UInt64) -> [UInt8] {
        Array(topic.utf8) + [0] + Array(sender.utf8) + [UInt8(ascii: " ")] + Array(String(epoch).utf8) + [UInt8(ascii: " ")]
    }

    /// Writes the first frame — `prefix` (from `headPrefix`), then the sequence's decimal digits —
    /// at the start of `buffer`, which holds at least `prefix.count + sequenceCapacity` bytes;
    /// returns the frame's length.
    ///
    /// Runs once per published message: one memory copy of the prefix, then the digits written
    /// in place, back to front.
    static func encodeHead(prefix: UnsafeRawBufferPointer, sequence: UInt64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        UnsafeMutableRawBufferPointer(rebasing: buffer[..<prefix.count]).copyMemory(from: prefix)
        let offset = prefix.count
        var digits = 1
        var scale = sequence
        while scale >= 10 {
            scale /= 10
            digits += 1
        }
        var rest = sequence
        for index in stride(from: offset + digits - 1, through: offset, by: -1) {
            buffer[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        return offset + digits
    }

    /// The tag a snapshot request and its answers carry: the requester's epoch and route id,
    /// unique among every subscriber of a publisher. `$snap.<epoch>.<route>` + NUL.
    static func snapshotTag(epoch: UInt64, route: UInt64) -> [UInt8] {
        var tag: [UInt8] = []
        appendSnapshotTag(epoch: epoch, route: route, to: &tag)
        return tag
    }

    /// Appends `snapshotTag(epoch:route:)` to `bytes`, digits written straight in: every open
    /// and close of a follow writes one (string interpolation cost a tenth of a topic change).
    static func appendSnapshotTag(epoch: UInt64, route: UInt64, to bytes: inout [UInt8]) {
        bytes.reserveCapacity(bytes.count + snapshotPrefixBytes.count + 2 * sequenceCapacity + 2)
        bytes.append(contentsOf: snapshotPrefixBytes)
        appendDecimal(epoch, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        appendDecimal(route, to: &bytes)
        bytes.append(0)
    }

    /// Appends the decimal digits of `value`.
    static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
        var scale: UInt64 = 1
        while value / scale >= 10 { scale *= 10 }  // no overflow: scale ≤ value / 10 before each step
        var rest = value
        while true {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest / scale))
            rest %= scale
            if scale == 1 { return }
            scale /= 10
        }
    }

    /// What a received message turned out to be.
    enum Parsed {
        case message(Received)
        /// A snapshot answer for the requester's route `route` (its epoch was `epoch`).
        case snapshot(Received, epoch: UInt64, route: UInt64)
        /// Not in the format above.
        case malformed
        /// In the format, but a topic, sender or value is longer than the limits allow.
        case oversized
    }

    /// Parses two frames. Topic and sender strings come from `topics` and `senders`, which reuse
    /// the previous message's when the bytes repeat.
    static func parse(_ frames: ZMQFrames, limits: WireLimits, topics: inout StringReuse, senders: inout StringReuse) -> Parsed {
        guard frames.count == 2 else { return .malformed }
        let head = frames[0]
        guard frames[1].count <= limits.maxValueBytes else { return .oversized }
        if head.starts(with: snapshotPrefixBytes) {
            guard let tagEnd = head.firstIndex(of: 0),
                let tag = parseTag(UnsafeRawBufferPointer(rebasing: head[snapshotPrefixBytes.count..<tagEnd]))
            else { return .malformed }
            let inner = UnsafeRawBufferPointer(rebasing: head[(tagEnd + 1)...])
            switch parseHead(inner, value: frames[1], limits: limits, snapshot: true, topics: &topics, senders: &senders) {
            case .message(let received): return .snapshot(received, epoch: tag.epoch, route: tag.route)
            case let other: return other
            }
        }
        return parseHead(head, value: frames[1], limits: limits, snapshot: false, topics: &topics, senders: &senders)
    }

    private static let snapshotPrefixBytes = Array(snapshotPrefix.utf8)

    /// `topic\0sender epoch sequence`, then the value.
    ///
    /// One pass over the head after the topic: the sender up to a space, then each number's
    /// digits accumulated as they are read (no second pass to convert them). Runs per message.
    private static func parseHead(
        _ head: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, limits: WireLimits, snapshot: Bool,
        topics: inout StringReuse, senders: inout StringReuse
    ) -> Parsed {
        guard let base = head.baseAddress, let found = memchr(base, 0, head.count) else { return .malformed }
        let nul = base.distance(to: UnsafeRawPointer(found))
        let end = head.count
        var index = nul + 1
        while index < end, head[index] != UInt8(ascii: " ") { index += 1 }
        let senderEnd = index
        guard senderEnd < end, let (epoch, epochEnd) = decimal(in: head, from: senderEnd + 1, upTo: UInt8(ascii: " ")),
            epochEnd < end, let (sequence, sequenceEnd) = decimal(in: head, from: epochEnd + 1, upTo: nil),
            sequenceEnd == end, sequence > 0
        else { return .malformed }  // sequences count from 1
        guard nul <= limits.maxNameBytes, senderEnd - nul - 1 <= limits.maxNameBytes else { return .oversized }
        return .message(
            Received(
                topic: topics.string(for: UnsafeRawBufferPointer(rebasing: head[..<nul])),
                sender: senders.string(for: UnsafeRawBufferPointer(rebasing: head[(nul + 1)..<senderEnd])),
                epoch: epoch,
                sequence: sequence,
                value: String(decoding: value, as: UTF8.self),
                isSnapshot: snapshot
            ))
    }

    /// The decimal number of 1 to 20 digits starting at `start`, ending at `terminator` (or at
    /// the end of `bytes` when nil), and the index where it ended; nil if anything else is there
    /// or it overflows a `UInt64`.
    @inline(__always)
    private static func decimal(in bytes: UnsafeRawBufferPointer, from start: Int, upTo terminator: UInt8?) -> (UInt64, Int)? {
        var value: UInt64 = 0
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == terminator { break }
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (tens, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, carried) = tens.addingReportingOverflow(UInt64(digit))
            guard !overflowed, !carried else { return nil }
            value = sum
            index += 1
        }
        guard index > start else { return nil }  // no digits
        return (value, index)
    }

    /// `<epoch>.<route>` of a snapshot tag.
    private static func parseTag(_ bytes: UnsafeRawBufferPointer) -> (epoch: UInt64, route: UInt64)? {
        guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")),
            let epoch = decimal(UnsafeRawBufferPointer(rebasing: bytes[..<dot])),
            let route = decimal(UnsafeRawBufferPointer(rebasing: bytes[(dot + 1)...]))
        else { return nil }
        return (epoch, route)
    }

    /// A decimal `UInt64` of 1 to 20 digits; nil for anything else, including one that overflows.
    static func decimal(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            guard byte >= 48, byte <= 57 else { return nil }
            let (tens, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, carried) = tens.addingReportingOverflow(UInt64(byte &- 48))
            guard !overflowed, !carried else { return nil }
            value = sum
        }
        return value
    }
}

/// The bounds `WireMessage.parse` applies (from `NodeLimits`).
struct WireLimits {
    let maxNameBytes: Int
    let maxValueBytes: Int

    init(_ limits: NodeLimits) {
        maxNameBytes = limits.maxNameBytes
        maxValueBytes = limits.maxValueBytes
    }
}

extension String {
    /// Calls `body` with the string's UTF-8 bytes, in place when it stores them contiguously
    /// (native and small strings) — no copy of the string, unlike `withUTF8` on a `var` copy.
    func withUTF8Bytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        var copy = self
        return try copy.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
}
