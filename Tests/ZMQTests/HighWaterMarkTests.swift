import Testing
import ZMQ

@Suite struct HighWaterMarkTests {
    @Test func publisherDropsAtHighWaterMark() throws {
        let context = try ZMQContext()
        let xpub = try context.socket(.xpub)
        let sub = try context.socket(.sub)
        defer { sub.close(); xpub.close() }
        // Options before bind/connect: the listener keeps the options it had at bind time.
        try xpub.setOption(.sendHighWaterMark, 10)
        try xpub.setOption(.receiveTimeout, .seconds(5))
        try sub.setOption(.receiveHighWaterMark, 10)
        let endpoint = try Support.bindLoopback(xpub)
        try sub.connect(endpoint)
        try sub.subscribe("t")
        _ = try xpub.receiveMultipart()  // the subscription has arrived: no slow-joiner loss

        let sent = 10_000
        for index in 0..<sent {
            // PUB/XPUB never block at the HWM: they drop, so `send` still reports success.
            #expect(try xpub.sendMultipart([Support.bytes("t"), [UInt8(truncatingIfNeeded: index)]], flags: .dontWait))
        }
        var delivered = 0
        let poller = ZMQPoller()
        try poller.register(sub)
        while try poller.poll(timeout: .milliseconds(200)) > 0 {
            while try sub.tryReceive({ _ in delivered += 1 }) != nil {}
        }
        #expect(delivered > 0)
        #expect(delivered < sent / 2, "expected most of the blast to be dropped, got \(delivered)/\(sent)")
    }

    @Test func subscriberSendHighWaterMarkIsUnlimitedByDefault() throws {
        let context = try ZMQContext()
        let sub = try context.socket(.sub)
        let xsub = try context.socket(.xsub)
        let pub = try context.socket(.pub)
        defer { pub.close(); xsub.close(); sub.close() }
        #expect(try sub.option(.sendHighWaterMark) == 0)
        #expect(try xsub.option(.sendHighWaterMark) == 0)
        #expect(try pub.option(.sendHighWaterMark) == 1000)
        #expect(try pub.option(.linger) == .zero)
    }

    @Test func manySubscriptionsAllArrive() throws {
        // 5,000 subscriptions in a burst: with libzmq's default SUB send-HWM of 1000 most would be lost.
        let context = try ZMQContext()
        let xpub = try context.socket(.xpub)
        let sub = try context.socket(.sub)
        defer { sub.close(); xpub.close() }
        try xpub.setOption(.xpubVerbose, true)
        try xpub.setOption(.receiveHighWaterMark, 0)
        try xpub.setOption(.receiveTimeout, .seconds(5))
        let endpoint = try Support.bindLoopback(xpub)
        try sub.connect(endpoint)
        try sub.subscribe("ready")
        _ = try xpub.receiveMultipart()
        let topics = 5_000
        for index in 0..<topics { try sub.subscribe("t.\(index)") }
        var seen = 0
        while seen < topics { _ = try xpub.receiveMultipart(); seen += 1 }
        #expect(seen == topics)
    }
}
