import Testing
import ZMQ

@Suite struct RouterDealerTests {
    @Test func requestReplyWithIdentities() throws {
        let context = try ZMQContext()
        let router = try context.socket(.router)
        let alice = try context.socket(.dealer)
        let bob = try context.socket(.dealer)
        defer { bob.close(); alice.close(); router.close() }
        for socket in [router, alice, bob] { try socket.setOption(.receiveTimeout, .seconds(5)) }
        try router.setOption(.routerMandatory, true)
        let endpoint = try Support.bindLoopback(router)
        try alice.setRoutingID(Support.bytes("alice"))
        try bob.setRoutingID(Support.bytes("bob"))
        try alice.connect(endpoint)
        try bob.connect(endpoint)

        try alice.send("hello from alice")
        try bob.send("hello from bob")
        var seen: Set<String> = []
        for _ in 0..<2 {
            let request = try router.receiveMultipart()
            #expect(request.count == 2)
            let id = String(decoding: request[0], as: UTF8.self)
            #expect(String(decoding: request[1], as: UTF8.self) == "hello from \(id)")
            seen.insert(id)
            try router.sendMultipart([request[0], Support.bytes("hi \(id)")])
        }
        #expect(seen == ["alice", "bob"])
        #expect(try alice.receiveMultipart() == [Support.bytes("hi alice")])
        #expect(try bob.receiveMultipart() == [Support.bytes("hi bob")])

        // With router-mandatory an unknown identity is an error instead of a silent drop.
        let error = #expect(throws: ZMQError.self) {
            try router.sendMultipart([Support.bytes("carol"), Support.bytes("?")])
        }
        #expect(error?.code == .hostUnreachable)
    }

    @Test func reqRepAlternation() throws {
        let context = try ZMQContext()
        let rep = try context.socket(.rep)
        let req = try context.socket(.req)
        defer { req.close(); rep.close() }
        let endpoint = Support.inprocEndpoint("reqrep")
        try rep.bind(endpoint)
        try req.connect(endpoint)
        try req.setOption(.receiveTimeout, .seconds(5))
        try rep.setOption(.receiveTimeout, .seconds(5))
        try req.send("ping")
        #expect(try rep.receiveMultipart() == [Support.bytes("ping")])
        try rep.send("pong")
        #expect(try req.receiveMultipart() == [Support.bytes("pong")])
        let error = #expect(throws: ZMQError.self) { try rep.send("again") }
        #expect(error?.code == .invalidState)
    }
}
