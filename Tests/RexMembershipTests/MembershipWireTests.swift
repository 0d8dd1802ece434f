import RexMembership
import Testing

/// Valid messages of every kind, the seeds of the fuzzing below.
let sampleMessages: [MembershipMessage] = {
    let alive = MemberUpdate(Member(id: "n2", address: "tcp://10.0.0.2:7000", status: .alive, incarnation: 3))
    let suspect = MemberUpdate(Member(id: "n3", address: "tcp://10.0.0.3:7000", status: .suspect, incarnation: 300), suspectedBy: "n1")
    let dead = MemberUpdate(Member(id: "nœud-4", address: "ipc:///tmp/4", status: .dead, incarnation: .max))
    let left = MemberUpdate(Member(id: "n5", address: "a", status: .left, incarnation: 0))
    let gossip = [alive, suspect, dead, left]
    return [
        MembershipMessage(
            sender: "n1", senderAddress: "tcp://10.0.0.1:7000", senderIncarnation: 1 << 40, body: .ping(sequence: 7), gossip: gossip),
        MembershipMessage(sender: "n1", senderAddress: "tcp://10.0.0.1:7000", body: .ping(sequence: .max)),
        MembershipMessage(
            sender: "n1", senderAddress: "x", body: .pingRequest(sequence: 9, target: "n3", targetAddress: "tcp://10.0.0.3:7000"),
            gossip: [suspect]),
        MembershipMessage(sender: "n1", senderAddress: "x", body: .ack(sequence: 0), gossip: [dead]),
        MembershipMessage(sender: "n1", senderAddress: "x", body: .nack(sequence: 12345)),
        MembershipMessage(sender: "n1", senderAddress: "x", body: .join(members: gossip, wantsReply: true)),
        MembershipMessage(sender: "n1", senderAddress: "x", body: .join(members: [alive], wantsReply: false), gossip: [left]),
        MembershipMessage(sender: "n1", senderAddress: "x", body: .joinReply(members: gossip + gossip)),
        MembershipMessage(sender: "n1", senderAddress: "x", body: .gossip, gossip: [left]),
    ]
}()

@Suite struct MembershipWireTests {
    @Test func everyKindRoundTrips() throws {
        for message in sampleMessages {
            let bytes = try message.encoded()
            #expect(try MembershipMessage(decoding: bytes) == message)
            #expect(bytes.count == MembershipWire.encodedSize(ofMessage: message))
        }
    }

    @Test func everyTruncationIsAnError() throws {
        for message in sampleMessages {
            let bytes = try message.encoded()
            for length in 0..<bytes.count {
                #expect(throws: MembershipWireError.self) { try MembershipMessage(decoding: Array(bytes[..<length])) }
            }
        }
    }

    @Test(
        arguments: [
            ([0x00, 1, 1], MembershipWireError.badMagic),
            ([0x53, 2, 1], .unsupportedVersion),
            ([0x53, 1, 99, 1, 0x61, 1, 0x62], .unknownKind),
            ([0x53, 1, 1, 0, 1, 0x62], .badString),  // empty id
            ([0x53, 1, 1, 65] + [UInt8](repeating: 0x61, count: 65) + [1, 0x62], .badString),  // id over 64 bytes
            ([0x53, 1, 1, 1, 0xFF, 1, 0x62, 0, 0, 0, 0, 0], .badString),  // not UTF-8
            ([0x53, 1, 1, 1, 0x61, 1, 0x62, 0, 0, 0, 0, 0, 33], .tooManyEntries),  // 33 gossip updates
            ([0x53, 1, 6, 1, 0x61, 1, 0x62, 0, 0xFF, 0xFF, 0], .tooManyEntries),  // 65535 members
            ([0x53, 1, 6, 1, 0x61, 1, 0x62, 0, 200, 0, 0], .truncated),  // 200 members in 1 byte
            ([0x53, 1, 1, 1, 0x61, 1, 0x62, 0, 0, 0, 0, 0, 1, 7, 0, 1, 0x63, 1, 0x64], .unknownStatus),
            ([0x53, 1, 1, 1, 0x61, 1, 0x62, 0, 0, 0, 0, 0, 1, 0] + [UInt8](repeating: 0xFF, count: 10) + [1, 0x63, 1, 0x64], .badVarint),
            (
                [
                    0x53, 1, 1, 1, 0x61, 1, 0x62, 0, 0, 0, 0, 0, 1, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02, 1, 0x63,
                    1, 0x64,
                ], .badVarint
            ),
            ([0x53, 1, 1, 1, 0x61, 1, 0x62, 0, 0, 0, 0, 0, 0, 0], .trailingBytes),
        ] as [([UInt8], MembershipWireError)])
    func forgedFieldsAreNamedErrors(bytes: [UInt8], error: MembershipWireError) {
        #expect(throws: error) { try MembershipMessage(decoding: bytes) }
    }

    @Test func anOversizedMessageIsRefusedBeforeItIsRead() {
        let bytes = [0x53, 1, 1] + [UInt8](repeating: 0, count: MembershipWire.maxMessageBytes)
        #expect(throws: MembershipWireError.oversized) { try MembershipMessage(decoding: bytes) }
    }

    /// A message of exactly the largest size decodes (a join reply page filled to the byte).
    @Test func aMessageOfExactlyTheMaximumSizeDecodes() throws {
        func update(_ index: Int, addressBytes: Int) -> MemberUpdate {
            MemberUpdate(Member(id: "m\(index)", address: String(repeating: "a", count: addressBytes)))
        }
        var members: [MemberUpdate] = []
        func message() -> MembershipMessage { MembershipMessage(sender: "n1", senderAddress: "x", body: .joinReply(members: members)) }
        while MembershipWire.encodedSize(ofMessage: message()) + MembershipWire.encodedSize(of: update(members.count, addressBytes: 100))
            <= MembershipWire.maxMessageBytes
        {
            members.append(update(members.count, addressBytes: 100))
        }
        // The bytes left (fewer than one more member's) go into the first addresses, up to 128.
        var left = MembershipWire.maxMessageBytes - MembershipWire.encodedSize(ofMessage: message())
        for index in members.indices where left > 0 {
            let more = min(left, MembershipWire.maxAddressBytes - 100)
            members[index] = update(index, addressBytes: 100 + more)
            left -= more
        }
        let bytes = try message().encoded()
        #expect(bytes.count == MembershipWire.maxMessageBytes)
        #expect(try MembershipMessage(decoding: bytes) == message())
    }

    @Test func theEncoderRefusesWhatTheDecoderWouldAndLeavesTheBufferAsItWas() {
        let long = String(repeating: "x", count: MembershipWire.maxIDBytes + 1)
        let tooManyGossip = [MemberUpdate](
            repeating: MemberUpdate(Member(id: "a", address: "b")), count: MembershipWire.maxGossipPerMessage + 1)
        let bad = [
            MembershipMessage(sender: long, senderAddress: "x", body: .ping(sequence: 1)),
            MembershipMessage(sender: "", senderAddress: "x", body: .ping(sequence: 1)),
            MembershipMessage(sender: "a", senderAddress: "x", body: .ping(sequence: 1), gossip: tooManyGossip),
            MembershipMessage(
                sender: "a", senderAddress: "x", body: .ping(sequence: 1),
                gossip: [MemberUpdate(Member(id: "a", address: "b", status: .suspect))]),
        ]
        for message in bad {
            var buffer: [UInt8] = [1, 2, 3]
            #expect(throws: MembershipWireError.unencodable) { try message.encode(into: &buffer) }
            #expect(buffer == [1, 2, 3])
        }
    }

    /// Random bytes, half of them behind a valid header so the fuzzing reaches the bodies: never a
    /// trap, every failure a named error, and what decodes re-encodes to the same message.
    @Test func randomBytesDecodeToAnErrorOrToAMessageThatRoundTrips() async {
        var random = MembershipRandom(seed: 19)
        var failures: [MembershipWireError: Int] = [:]
        for round in 0..<20_000 {
            if round % 500 == 0 { await Task.yield() }  // CPU-bound: leave the shared pool to others now and then
            let length = random.index(below: 120)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if round % 2 == 0 { bytes = [0x53, 1, UInt8(1 + random.index(below: 7)), 1, 0x61, 1, 0x62, 0] + bytes }
            do throws(MembershipWireError) {
                expectRoundTrip(try MembershipMessage(decoding: bytes))
            } catch {
                failures[error, default: 0] += 1
            }
        }
        #expect(failures.count >= 5, "random bodies reach many checks: \(failures)")
    }

    /// Valid messages with bytes flipped, inserted, removed or overwritten with extreme values.
    @Test func mutationsOfValidMessagesNeverTrap() async throws {
        var random = MembershipRandom(seed: 20)
        let encoded = try sampleMessages.map { try $0.encoded() }
        var failures: [MembershipWireError: Int] = [:]
        for round in 0..<30_000 {
            if round % 500 == 0 { await Task.yield() }
            var bytes = encoded[random.index(below: encoded.count)]
            for _ in 0..<(1 + random.index(below: 3)) {
                let position = random.index(below: bytes.count)
                switch random.index(below: 4) {
                case 0: bytes[position] ^= UInt8(1) << UInt8(random.index(below: 8))
                case 1: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
                case 2: bytes.remove(at: position)
                default: bytes[position] = [0x00, 0x7F, 0x80, 0xFF][random.index(below: 4)]
                }
                if bytes.isEmpty { break }
            }
            do throws(MembershipWireError) {
                expectRoundTrip(try MembershipMessage(decoding: bytes))
            } catch {
                failures[error, default: 0] += 1
            }
        }
        #expect(failures.count >= 5, "the mutations reach many checks: \(failures)")
    }

    func expectRoundTrip(_ message: MembershipMessage) {
        guard let again = try? message.encoded(), let back = try? MembershipMessage(decoding: again) else {
            Issue.record("a decoded message does not re-encode: \(message)")
            return
        }
        #expect(back == message)
    }
}
