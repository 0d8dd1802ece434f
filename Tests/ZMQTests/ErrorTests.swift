import Testing
import ZMQ

@Suite struct ErrorTests {
    @Test func addressInUseReadsClearly() throws {
        let context = try ZMQContext()
        let first = try context.socket(.pub)
        let second = try context.socket(.pub)
        defer { second.close(); first.close() }
        let endpoint = try Support.bindLoopback(first)
        let error = try #require(throws: ZMQError.self) { try second.bind(endpoint) }
        #expect(error.code == .addressInUse)
        #expect(error.function == "zmq_bind")
        #expect(error.message == "Address already in use")
        let text = String(describing: error)
        #expect(text.hasPrefix("bind \(endpoint) failed: Address already in use (EADDRINUSE)"))
        #expect(text.contains("is another process using the port?"))
    }

    @Test(arguments: [
        ("nonsense", ZMQError.Code.invalidEndpoint),
        ("tcp://127.0.0.1:notaport", .invalidEndpoint),
        ("bogus://127.0.0.1:5555", .protocolNotSupported),
    ])
    func badEndpoints(endpoint: String, code: ZMQError.Code) throws {
        let context = try ZMQContext()
        let socket = try context.socket(.sub)
        defer { socket.close() }
        let bindError = try #require(throws: ZMQError.self) { try socket.bind(endpoint) }
        #expect(bindError.code == code)
        #expect(String(describing: bindError).hasPrefix("bind \(endpoint) failed: "))
        let connectError = try #require(throws: ZMQError.self) { try socket.connect(endpoint) }
        #expect(connectError.code == code)
        #expect(connectError.function == "zmq_connect")
    }

    @Test func connectingToMissingInprocEndpointIsAllowedButUnbindIsNot() throws {
        let context = try ZMQContext()
        let socket = try context.socket(.pub)
        defer { socket.close() }
        try socket.connect(Support.inprocEndpoint("later"))  // inproc allows connect before bind
        let error = try #require(throws: ZMQError.self) { try socket.unbind("tcp://127.0.0.1:1") }
        #expect(error.function == "zmq_unbind")
        #expect(error.errno != 0)
    }

    @Test func invalidOptionValue() throws {
        let context = try ZMQContext()
        let socket = try context.socket(.sub)
        defer { socket.close() }
        let error = try #require(throws: ZMQError.self) { try socket.setOption(.sendHighWaterMark, -5) }
        #expect(error.code == .invalidArgument)
        #expect(String(describing: error).contains("sendHighWaterMark"))
    }
}
