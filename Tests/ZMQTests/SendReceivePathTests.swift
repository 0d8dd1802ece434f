import Testing
import ZMQ

/// The edges of the send/receive fast paths: every outcome that leaves the inlined path
/// (closed socket, would-block, timeout) and frame sizes taken from `zmq_msg_recv`'s result.
@Suite struct SendReceivePathTests {
    @Test func everySendFormReportsAClosedSocket() throws {
        let context = try ZMQContext()
        let socket = try context.socket(.pair)
        socket.close()
        let bytes: [UInt8] = [1, 2, 3]
        let raw = #expect(throws: ZMQError.self) { _ = try bytes.withUnsafeBytes { try socket.send($0) } }
        let array = #expect(throws: ZMQError.self) { try socket.send(bytes) }
        let text = #expect(throws: ZMQError.self) { try socket.send("x") }
        let receive = #expect(throws: ZMQError.self) { try socket.receive { $0.count } }
        for error in [raw, array, text, receive] {
            #expect(error?.code == .socketClosed)
        }
        try context.terminate(timeout: .seconds(1))
    }

    @Test func nonBlockingSendWithoutPeerReturnsFalse() throws {
        let context = try ZMQContext()
        let dealer = try context.socket(.dealer)  // no peer: nothing can be queued
        defer { dealer.close() }
        let bytes: [UInt8] = [1, 2, 3]
        #expect(try bytes.withUnsafeBytes { try dealer.send($0, flags: .dontWait) } == false)
        #expect(try dealer.send(bytes, flags: .dontWait) == false)
        #expect(try dealer.send("x", flags: .dontWait) == false)
    }

    @Test func blockingSendTimesOutWithWouldBlock() throws {
        let context = try ZMQContext()
        let dealer = try context.socket(.dealer)
        defer { dealer.close() }
        try dealer.setOption(.sendTimeout, .milliseconds(20))
        let bytes: [UInt8] = [1, 2, 3]
        let raw = #expect(throws: ZMQError.self) { _ = try bytes.withUnsafeBytes { try dealer.send($0) } }
        let array = #expect(throws: ZMQError.self) { try dealer.send(bytes) }
        let text = #expect(throws: ZMQError.self) { try dealer.send("x") }
        for error in [raw, array, text] {
            #expect(error?.code == .wouldBlock)
            #expect(error?.function == "zmq_send")
        }
    }

    /// Sizes around libzmq's in-message limit (small frames live inside the `zmq_msg_t`), large
    /// ones, and more frames than the pool's first table holds.
    @Test(arguments: ["inproc", "ipc"])
    func frameSizesAndCountsArriveIntact(transport: String) throws {
        let context = try ZMQContext()
        let push = try context.socket(.push)
        let pull = try context.socket(.pull)
        defer { pull.close(); push.close() }
        let endpoint = transport == "inproc" ? Support.inprocEndpoint("sizes") : Support.ipcEndpoint("sizes")
        try pull.bind(endpoint)
        try pull.setOption(.receiveTimeout, .seconds(5))
        try push.connect(endpoint)

        let sizes = [0, 1, 29, 32, 33, 34, 64, 4096, 8191, 8192, 70_000, 1 << 20]
        let frames = sizes.enumerated().map { index, size in
            (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
        }
        for _ in 0..<3 {  // again, so every slot is reused with a different size before it
            try push.sendMultipart(frames)
            let matches = try pull.receive { received in
                received.count == frames.count && zip(received, frames).allSatisfy { $0.elementsEqual($1) }
            }
            #expect(matches)
            try push.sendMultipart([[7]])
            #expect(try pull.receiveMultipart() == [[7]])
        }
    }
}
