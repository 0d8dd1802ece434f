import Testing
import ZMQ

/// What a socket accepts from a peer at most: the frame size libzmq reads, and the frames of one
/// message the receive path keeps.
@Suite struct InputBoundsTests {
    @Test func maxMessageSizeIsA64BitOptionAndReadsBack() throws {
        let context = try ZMQContext()
        let socket = try context.socket(.sub)
        defer { socket.close() }
        #expect(try socket.option(.maxMessageSize) == nil, "unlimited by default")
        try socket.setOption(.maxMessageSize, 5_000_000_000)  // past Int32: needs int64_t
        #expect(try socket.option(.maxMessageSize) == 5_000_000_000)
        try socket.setOption(.maxMessageSize, nil)
        #expect(try socket.option(.maxMessageSize) == nil)
    }

    /// A peer that sends a frame over the limit loses its connection; the frame never arrives.
    @Test func aFrameOverTheLimitIsNotDelivered() throws {
        let context = try ZMQContext()
        let receiver = try context.socket(.pull)
        let sender = try context.socket(.push)
        defer {
            sender.close()
            receiver.close()
        }
        try receiver.setOption(.maxMessageSize, 1_024)
        try receiver.setOption(.receiveTimeout, .milliseconds(500))
        let endpoint = try Support.bindLoopback(receiver)
        try sender.connect(endpoint)
        _ = try sender.send([UInt8](repeating: 1, count: 1_025))
        #expect(throws: ZMQError.self) { try receiver.receive { $0.count } }
        let small = try context.socket(.push)
        defer { small.close() }
        try small.connect(endpoint)
        _ = try small.send([UInt8](repeating: 2, count: 1_024))
        #expect(try receiver.receive { $0[0].count } == 1_024, "other peers are still served")
    }

    /// libzmq bounds no frame count: a message of 10,000 frames arrives whole. The receive path
    /// hands over `limit + 1` frames (the last being the message's last) and keeps no more slots.
    @Test func framesPastTheLimitAreReleasedAsTheyArrive() throws {
        let context = try ZMQContext()
        let receiver = try context.socket(.pair)
        let sender = try context.socket(.pair)
        defer {
            sender.close()
            receiver.close()
        }
        receiver.receiveFrameLimit = 2
        let endpoint = Support.inprocEndpoint("frame-limit")
        try receiver.bind(endpoint)
        try sender.connect(endpoint)
        let frames = (0..<10_000).map { [UInt8](String($0).utf8) }
        _ = try sender.sendMultipart(frames)
        _ = try sender.sendMultipart([[1], [2]])
        let first = try receiver.receive { frames in frames.map { Array($0) } }
        #expect(first == [Array("0".utf8), Array("1".utf8), Array("9999".utf8)])
        #expect(try receiver.receive { frames in frames.map { Array($0) } } == [[1], [2]], "the next message is intact")
    }
}
