import ZMQ

/// How a message travels between nodes: `[topic\0sender sequence, value]`.
///
/// The first frame starts with the topic and a NUL (what subscriptions match), followed by the
/// header; two frames per message, like a plain `[topic, payload]` PUB/SUB stream.
enum WireMessage {
    static let heartbeatPrefix = "$hb."

    /// The most bytes `encodeHead` writes after its prefix: a `UInt64` has at most 20 digits.
    static let sequenceCapacity = 20

    /// The part of the first frame that stays the same for every message of one topic from one
    /// sender: `topic\0sender ` (only the sequence follows).
    static func headPrefix(topic: String, sender: String) -> [UInt8] {
        Array(topic.utf8) + [0] + Array(sender.utf8) + [UInt8(ascii: " ")]
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

    /// Parses two frames; nil when they do not follow the format. Topic and sender strings come
    /// from `topics` and `senders`, which reuse the previous message's when the bytes repeat.
    static func parse(_ frames: ZMQFrames, topics: inout StringReuse, senders: inout StringReuse) -> Received? {
        guard frames.count == 2 else { return nil }
        let head = frames[0]
        guard let nul = head.firstIndex(of: 0) else { return nil }
        let rest = head[(nul + 1)...]
        guard let space = rest.firstIndex(of: UInt8(ascii: " ")) else { return nil }
        var sequence: UInt64 = 0
        for byte in head[(space + 1)...] {
            guard byte >= 48, byte <= 57 else { return nil }
            sequence = sequence &* 10 &+ UInt64(byte - 48)
        }
        return Received(
            topic: topics.string(for: UnsafeRawBufferPointer(rebasing: head[..<nul])),
            sender: senders.string(for: UnsafeRawBufferPointer(rebasing: head[(nul + 1)..<space])),
            sequence: sequence,
            value: String(decoding: frames[1], as: UTF8.self)
        )
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
