import Testing
import ZMQ
@testable import RexNode

/// The first frame of every message: `topic\0sender sequence`.
@Suite struct WireMessageTests {
    /// Encodes a head the way a node does: the topic's fixed prefix, then the sequence.
    private func encodedHead(topic: String, sender: String, sequence: UInt64) -> (bytes: [UInt8], capacity: Int) {
        let prefix = WireMessage.headPrefix(topic: topic, sender: sender)
        let capacity = prefix.count + WireMessage.sequenceCapacity
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
        defer { buffer.deallocate() }
        let length = prefix.withUnsafeBytes { WireMessage.encodeHead(prefix: $0, sequence: sequence, into: buffer) }
        return (Array(buffer[..<length]), capacity)
    }

    @Test(arguments: [UInt64(0), 7, 10, 99, 12_345, UInt64.max])
    func headHoldsTopicSenderAndDecimalSequence(sequence: UInt64) {
        let head = encodedHead(topic: "eu.prices", sender: "n1", sequence: sequence)
        #expect(head.bytes.count <= head.capacity)
        #expect(head.bytes == Array("eu.prices\0n1 \(sequence)".utf8))
    }

    @Test func emptyAndMultibyteStringsAreCopiedByteForByte() {
        #expect(encodedHead(topic: "größe", sender: "", sequence: 3).bytes == Array("größe\0 3".utf8))
    }

    @Test func parsingReusesRepeatedTopicsAndSendersWithoutMixingThemUp() throws {
        let context = try ZMQContext()
        let receiver = try context.socket(.pair)
        let sender = try context.socket(.pair)
        defer {
            sender.close()
            receiver.close()
        }
        try receiver.bind("inproc://wire-parse")
        try sender.connect("inproc://wire-parse")
        let sent: [[String]] = [
            ["t1\0a 1", "v1"], ["t1\0a 2", "v2"], ["t2\0b 7", "v3"], ["t1\0b 3", ""],
            ["no-separator", "x"], ["t1\0a 4", "v4"], ["t1\0a x", "bad sequence"], ["t\u{e9}\0a 5", "\u{1F600}"],
        ]
        for frames in sent { _ = try sender.sendMultipart(frames) }
        var topics = StringReuse()
        var senders = StringReuse()
        var parsed: [Received?] = []
        for _ in sent {
            parsed.append(try receiver.receive { WireMessage.parse($0, topics: &topics, senders: &senders) })
        }
        #expect(parsed == [
            Received(topic: "t1", sender: "a", sequence: 1, value: "v1"),
            Received(topic: "t1", sender: "a", sequence: 2, value: "v2"),
            Received(topic: "t2", sender: "b", sequence: 7, value: "v3"),
            Received(topic: "t1", sender: "b", sequence: 3, value: ""),
            nil,
            Received(topic: "t1", sender: "a", sequence: 4, value: "v4"),
            nil,
            Received(topic: "t\u{e9}", sender: "a", sequence: 5, value: "\u{1F600}"),
        ])
    }

    @Test func reusedStringsFollowTheBytesIncludingRepairedOnes() {
        var reuse = StringReuse()
        func decode(_ bytes: [UInt8]) -> String { bytes.withUnsafeBytes { reuse.string(for: $0) } }
        #expect(decode(Array("abc".utf8)) == "abc")
        #expect(decode(Array("abc".utf8)) == "abc")
        #expect(decode(Array("abd".utf8)) == "abd")
        #expect(decode([]) == "")
        #expect(decode([0x61, 0xFF]) == "a\u{FFFD}")
        #expect(decode(Array("ab".utf8)) == "ab")
    }
}
