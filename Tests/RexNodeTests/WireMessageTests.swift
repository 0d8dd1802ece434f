import Testing
@testable import RexNode

/// The first frame of every message: `topic\0sender sequence`.
@Suite struct WireMessageTests {
    @Test(arguments: [UInt64(0), 7, 10, 99, 12_345, UInt64.max])
    func headHoldsTopicSenderAndDecimalSequence(sequence: UInt64) {
        let topic = "eu.prices"
        let sender = "n1"
        let capacity = WireMessage.headCapacity(topic: topic, sender: sender)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
        defer { buffer.deallocate() }
        let length = WireMessage.encodeHead(topic: topic, sender: sender, sequence: sequence, into: buffer)
        #expect(length <= capacity)
        #expect(Array(buffer[..<length]) == Array("eu.prices\0n1 \(sequence)".utf8))
    }

    @Test func emptyAndMultibyteStringsAreCopiedByteForByte() {
        let topic = "größe"
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: WireMessage.headCapacity(topic: topic, sender: ""), alignment: 1)
        defer { buffer.deallocate() }
        let length = WireMessage.encodeHead(topic: topic, sender: "", sequence: 3, into: buffer)
        #expect(Array(buffer[..<length]) == Array("größe\0 3".utf8))
    }
}
