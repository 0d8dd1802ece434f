import Testing
import ZMQ

@Suite struct PubSubTests {
    @Test(arguments: ["inproc", "ipc", "tcp"])
    func prefixFilteringDeliversOnlyMatchingMultipartMessages(transport: String) throws {
        let context = try ZMQContext()
        let pub = try context.socket(.pub)
        let sub = try context.socket(.sub)
        defer { sub.close(); pub.close() }
        let endpoint: String
        switch transport {
        case "inproc": endpoint = Support.inprocEndpoint("pubsub"); try pub.bind(endpoint)
        case "ipc": endpoint = Support.ipcEndpoint("pubsub"); try pub.bind(endpoint)
        default: endpoint = try Support.bindLoopback(pub)
        }
        try sub.setOption(.receiveTimeout, .seconds(5))
        try sub.subscribe("node/a/")
        try sub.connect(endpoint)
        try Support.synchronize(pub: pub, sub: sub)

        try pub.sendMultipart(["node/b/state", "ignored"])
        try pub.sendMultipart(["node/a/state", "first", "third frame"])
        try pub.send(Support.bytes("node/a/x"), flags: .more)
        let payload: [UInt8] = [0, 1, 2, 255]
        _ = try payload.withUnsafeBytes { try pub.send($0) }

        let first = try sub.receiveMultipart()
        #expect(first == [Support.bytes("node/a/state"), Support.bytes("first"), Support.bytes("third frame")])
        let second = try sub.receive { frames in (frames.count, frames.string(0), frames.bytes(1)) }
        #expect(second.0 == 2)
        #expect(second.1 == "node/a/x")
        #expect(second.2 == payload)
        #expect(try sub.tryReceiveMultipart() == nil)
        sub.close()
        pub.close()
        try context.terminate(timeout: .seconds(2))
    }

    @Test func subscribeAndUnsubscribeAtRuntime() throws {
        let context = try ZMQContext()
        let pub = try context.socket(.pub)
        let sub = try context.socket(.sub)
        defer { sub.close(); pub.close() }
        let endpoint = try Support.bindLoopback(pub)
        try sub.setOption(.receiveTimeout, .seconds(5))
        try sub.connect(endpoint)
        try sub.subscribe("a/")
        try Support.synchronize(pub: pub, sub: sub)

        try pub.sendMultipart(["a/1", "x"])
        try pub.sendMultipart(["b/1", "x"])
        let got1 = try sub.receiveMultipart()
        #expect(got1[0] == Support.bytes("a/1"))

        // Switch topics on the live socket (cheaper than recreating it).
        try sub.unsubscribe("a/")
        try sub.subscribe("b/")
        try Support.synchronize(pub: pub, sub: sub)
        try pub.sendMultipart(["a/2", "x"])
        try pub.sendMultipart(["b/2", "x"])
        let got = try sub.receiveMultipart()
        #expect(got[0] == Support.bytes("b/2"))
        #expect(try sub.tryReceiveMultipart() == nil)
    }

    @Test func xpubSeesSubscriptionFrames() throws {
        let context = try ZMQContext()
        let xpub = try context.socket(.xpub)
        let sub = try context.socket(.sub)
        defer { sub.close(); xpub.close() }
        try xpub.setOption(.xpubVerbose, true)
        try xpub.setOption(.receiveTimeout, .seconds(5))
        try sub.setOption(.receiveTimeout, .seconds(5))
        let endpoint = try Support.bindLoopback(xpub)
        try sub.connect(endpoint)

        // Handshake without sleeping: the XPUB sees the subscription, then answers at once.
        try sub.subscribe("topic/")
        #expect(try xpub.receiveMultipart() == [[1] + Support.bytes("topic/")])
        try xpub.sendMultipart(["topic/state", "snapshot"])
        #expect(try sub.receiveMultipart() == [Support.bytes("topic/state"), Support.bytes("snapshot")])

        try sub.unsubscribe("topic/")
        #expect(try xpub.receiveMultipart() == [[0] + Support.bytes("topic/")])
    }
}
