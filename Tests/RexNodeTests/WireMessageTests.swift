import RexControl
import Testing
import ZMQ

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The first frame of every message: `topic\0sender epoch sequence` — and what a parse does with
/// frames a hostile peer wrote.
@Suite struct WireMessageTests {
    /// Encodes a head the way a node does: the topic's fixed prefix, then the sequence.
    private func encodedHead(topic: String, sender: String, epoch: UInt64 = 9, sequence: UInt64) -> (bytes: [UInt8], capacity: Int) {
        let prefix = WireMessage.headPrefix(topic: topic, sender: sender, epoch: epoch)
        let capacity = prefix.count + WireMessage.sequenceCapacity
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
        defer { buffer.deallocate() }
        let length = prefix.withUnsafeBytes { WireMessage.encodeHead(prefix: $0, sequence: sequence, into: buffer) }
        return (Array(buffer[..<length]), capacity)
    }

    @Test(arguments: [UInt64(0), 7, 10, 99, 12_345, UInt64.max])
    func headHoldsTopicSenderEpochAndDecimalSequence(sequence: UInt64) {
        let head = encodedHead(topic: "eu.prices", sender: "n1", epoch: UInt64.max, sequence: sequence)
        #expect(head.bytes.count <= head.capacity)
        #expect(head.bytes == Array("eu.prices\0n1 \(UInt64.max) \(sequence)".utf8))
    }

    @Test func emptyAndMultibyteStringsAreCopiedByteForByte() {
        #expect(encodedHead(topic: "größe", sender: "", epoch: 1, sequence: 3).bytes == Array("größe\0 1 3".utf8))
    }

    /// Sends each message over an inproc pair and parses it as a node does.
    private func parseAll(_ sent: [[[UInt8]]], limits: NodeLimits = NodeLimits()) throws -> [WireMessage.Parsed] {
        let context = try ZMQContext()
        let receiver = try context.socket(.pair)
        let sender = try context.socket(.pair)
        defer {
            sender.close()
            receiver.close()
        }
        receiver.receiveFrameLimit = 2
        let endpoint = "inproc://wire-parse-\(UInt64.random(in: 0...UInt64.max))"
        try receiver.bind(endpoint)
        try sender.connect(endpoint)
        for frames in sent { _ = try sender.sendMultipart(frames) }
        var topics = StringReuse()
        var senders = StringReuse()
        var parsed: [WireMessage.Parsed] = []
        for _ in sent {
            parsed.append(try receiver.receive { WireMessage.parse($0, limits: WireLimits(limits), topics: &topics, senders: &senders) })
        }
        return parsed
    }

    private func messages(_ parsed: [WireMessage.Parsed]) -> [Received?] {
        parsed.map { if case .message(let received) = $0 { received } else { nil } }
    }

    private func frames(_ strings: String...) -> [[UInt8]] { strings.map { Array($0.utf8) } }

    @Test func parsingReusesRepeatedTopicsAndSendersWithoutMixingThemUp() throws {
        let parsed = try parseAll([
            frames("t1\0a 3 1", "v1"), frames("t1\0a 3 2", "v2"), frames("t2\0b 4 7", "v3"), frames("t1\0b 4 3", ""),
            frames("no-separator", "x"), frames("t1\0a 3 4", "v4"), frames("t1\0a 3 x", "bad sequence"),
            frames("t\u{e9}\0a 3 5", "\u{1F600}"),
        ])
        #expect(
            messages(parsed) == [
                Received(topic: "t1", sender: "a", epoch: 3, sequence: 1, value: "v1"),
                Received(topic: "t1", sender: "a", epoch: 3, sequence: 2, value: "v2"),
                Received(topic: "t2", sender: "b", epoch: 4, sequence: 7, value: "v3"),
                Received(topic: "t1", sender: "b", epoch: 4, sequence: 3, value: ""),
                nil,
                Received(topic: "t1", sender: "a", epoch: 3, sequence: 4, value: "v4"),
                nil,
                Received(topic: "t\u{e9}", sender: "a", epoch: 3, sequence: 5, value: "\u{1F600}"),
            ])
    }

    /// Regression: a sequence of more than 20 digits wrapped silently; one that overflows UInt64
    /// must not become a small number either.
    @Test func numbersThatDoNotFitAUInt64AreMalformed() throws {
        let parsed = try parseAll([
            frames("t\0a 1 18446744073709551615", "max"),
            frames("t\0a 1 18446744073709551616", "max + 1"),
            frames("t\0a 1 1000000000000000000001", "25 digits"),
            frames("t\0a 99999999999999999999 1", "epoch overflow"),
            frames("t\0a 1 0", "sequences count from 1"),
            frames("t\0a 1 ", "no digits"),
            frames("t\0a 1", "no epoch"),
            frames("t\0a  1", "empty epoch"),
            frames("t\0a 1 -1", "sign"),
        ])
        #expect(
            messages(parsed) == [Received(topic: "t", sender: "a", epoch: 1, sequence: UInt64.max, value: "max")]
                + Array(repeating: nil, count: 8))
        for outcome in parsed.dropFirst() {
            guard case .malformed = outcome else {
                Issue.record("expected malformed, got \(outcome)")
                continue
            }
        }
    }

    @Test func topicsSendersAndValuesOverTheLimitsAreOversized() throws {
        let limits = NodeLimits(maxNameBytes: 4, maxValueBytes: 8)
        let parsed = try parseAll(
            [
                frames("abcd\0abcd 1 1", "12345678"),
                frames("abcde\0a 1 1", "v"),
                frames("a\0abcde 1 1", "v"),
                frames("a\0a 1 1", "123456789"),
            ], limits: limits)
        #expect(messages(parsed).first! == Received(topic: "abcd", sender: "abcd", epoch: 1, sequence: 1, value: "12345678"))
        for outcome in parsed.dropFirst() {
            guard case .oversized = outcome else {
                Issue.record("expected oversized, got \(outcome)")
                continue
            }
        }
    }

    @Test func aMessageOfMoreThanTwoFramesIsMalformed() throws {
        let parsed = try parseAll([frames("t\0a 1 1", "v", "extra"), frames("t\0a 1 1"), frames("t\0a 1 2", "v")])
        #expect(messages(parsed) == [nil, nil, Received(topic: "t", sender: "a", epoch: 1, sequence: 2, value: "v")])
    }

    @Test(arguments: [UInt64(0), 7, 9, 10, 99, 100, 1_000_007, UInt64(Int64.max), UInt64.max - 1, UInt64.max])
    func aSnapshotTagWritesBothNumbersInDecimal(_ value: UInt64) {
        #expect(WireMessage.snapshotTag(epoch: value, route: 42) == Array("$snap.\(value).42".utf8) + [0])
        #expect(WireMessage.snapshotTag(epoch: 3, route: value) == Array("$snap.3.\(value)".utf8) + [0])
    }

    @Test func aSnapshotAnswerCarriesItsRequestsTag() throws {
        let tag = WireMessage.snapshotTag(epoch: 77, route: 5)
        let parsed = try parseAll([
            [tag + Array("eu.x\0n2 3 41".utf8), Array("v".utf8)],
            frames("$snap.77\0eu.x\0n2 3 41", "no route"),
            frames("$snap.77.x\0eu.x\0n2 3 41", "bad route"),
        ])
        guard case .snapshot(let received, let epoch, let route) = parsed[0] else {
            Issue.record("expected a snapshot, got \(parsed[0])")
            return
        }
        #expect(epoch == 77 && route == 5)
        #expect(received == Received(topic: "eu.x", sender: "n2", epoch: 3, sequence: 41, value: "v", isSnapshot: true))
        for outcome in parsed.dropFirst() {
            guard case .malformed = outcome else {
                Issue.record("expected malformed, got \(outcome)")
                continue
            }
        }
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
