import Foundation
import Testing
import ZMQ

/// CURVE and ZAP on real sockets: who gets through, and how a refusal shows.
@Suite struct CurveTests {
    /// A CURVE ROUTER server and its context's ZAP handler, pumped on the test's thread.
    final class Server {
        let context: ZMQContext
        let zap: ZMQZapHandler
        let router: ZMQSocket
        let endpoint: String
        let pair: ZMQCurveKeyPair
        var allowed: Set<ZMQCurveKey>
        var requests: [ZMQZapRequest] = []

        init(context: ZMQContext, allowed: Set<ZMQCurveKey>) throws {
            self.context = context
            self.allowed = allowed
            pair = try ZMQCurveKeyPair.generate()
            zap = try ZMQZapHandler(context: context)
            router = try context.socket(.router)
            try router.makeCurveServer(pair, zapDomain: "test.control")
            endpoint = try Support.bindLoopback(router)
        }

        /// Answers ZAP requests and reads the router until `deadline`, or until a request
        /// arrives; returns it with its `User-Id`.
        func receive(within timeout: Duration) throws -> (frames: [[UInt8]], userID: String?)? {
            let poller = ZMQPoller()
            let zapToken = try poller.register(zap.socket)
            let routerToken = try poller.register(router)
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                _ = try poller.poll(timeout: .milliseconds(5))
                if poller.isReadable(zapToken) {
                    zap.answerPending { request in
                        requests.append(request)
                        guard let key = request.clientKey, allowed.contains(key) else { return .deny(reason: "unknown key") }
                        return .allow(userID: key.z85)
                    }
                }
                if poller.isReadable(routerToken), let frames = try router.tryReceiveMultipart() {
                    return (frames, router.receivedProperty("User-Id"))
                }
            }
            return nil
        }

        func close() {
            router.close()
            zap.close()
        }
    }

    @Test func libzmqHasCurve() {
        #expect(ZMQCapabilities.hasCurve)
    }

    @Test func z85RoundTripsAndRejectsWhatIsNotZ85() throws {
        // RFC 32's test vector.
        #expect(ZMQZ85.encode([0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B]) == "HelloWorld")
        #expect(ZMQZ85.decode("HelloWorld") == [0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B])
        let bytes = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        let text = try #require(ZMQZ85.encode(bytes))
        #expect(text.count == 40)
        #expect(ZMQZ85.decode(text) == bytes)
        #expect(ZMQZ85.encode([1, 2, 3]) == nil)  // not a multiple of 4
        #expect(ZMQZ85.decode("Hello") != nil)
        #expect(ZMQZ85.decode("Hell") == nil)  // not a multiple of 5
        #expect(ZMQZ85.decode("Hell\"") == nil)  // '"' is not a Z85 digit
        #expect(ZMQZ85.decode("Hellé") == nil)
        #expect(ZMQZ85.decode(String(repeating: "0", count: 5000)) == nil)  // over the bound
        #expect(ZMQCurveKey(z85: "HelloWorld") == nil)  // a valid Z85 text, not a key
        #expect(ZMQCurveKey(bytes: [1, 2]) == nil)
    }

    @Test func aKeyPairsPublicKeyIsDerivedFromItsSecret() throws {
        let pair = try ZMQCurveKeyPair.generate()
        #expect(try ZMQCurveKeyPair.publicKey(of: pair.secretKey) == pair.publicKey)
        #expect(try ZMQCurveKeyPair(secretKey: pair.secretKey) == pair)
        #expect(try ZMQCurveKeyPair.generate() != pair)
        #expect(ZMQCurveKey(z85: pair.publicKey.z85) == pair.publicKey)
    }

    @Test func keyOptionsReadBackAndTheMechanismIsCurve() throws {
        let context = try ZMQContext()
        let socket = try context.socket(.dealer)
        defer { socket.close() }
        #expect(try socket.option(.mechanism) == .null)
        let pair = try ZMQCurveKeyPair.generate()
        let server = try ZMQCurveKeyPair.generate()
        try socket.makeCurveClient(pair, serverKey: server.publicKey)
        #expect(try socket.option(.mechanism) == .curve)
        #expect(try socket.option(.curvePublicKey) == pair.publicKey)
        #expect(try socket.option(.curveServerKey) == server.publicKey)
        try socket.setOption(.zapDomain, "rex.data")
        #expect(try socket.option(.zapDomain) == "rex.data")
        try socket.setOption(.handshakeInterval, .milliseconds(750))
        #expect(try socket.option(.handshakeInterval) == .milliseconds(750))
    }

    @Test func anAllowedClientWithTheServersKeyGetsThroughWithItsUserID() throws {
        let context = try ZMQContext()
        let client = try ZMQCurveKeyPair.generate()
        let server = try Server(context: context, allowed: [client.publicKey])
        let dealer = try context.socket(.dealer)
        let monitor = try ZMQSocketMonitor(dealer)
        defer { monitor.close(); dealer.close(); server.close() }
        try dealer.makeCurveClient(client, serverKey: server.pair.publicKey)
        try dealer.connect(server.endpoint)
        try dealer.send("hello")

        let received = try #require(try server.receive(within: .seconds(5)))
        #expect(received.frames.last == Support.bytes("hello"))
        #expect(received.userID == client.publicKey.z85)
        #expect(server.requests.map(\.domain) == ["test.control"])
        #expect(server.requests.first?.mechanism == "CURVE")
        #expect(server.requests.first?.clientKey == client.publicKey)
        #expect(server.zap.counters == .init(allowed: 1, denied: 0, malformed: 0))

        try server.router.sendMultipart([received.frames[0], Support.bytes("hi")])
        try dealer.setOption(.receiveTimeout, .seconds(5))
        #expect(try dealer.receiveMultipart() == [Support.bytes("hi")])
        #expect(monitor.drain().contains { $0.kind == .handshakeSucceeded })
    }

    @Test func aClientNotOnTheAllowlistIsRefusedWithZapStatus400() throws {
        let context = try ZMQContext()
        let stranger = try ZMQCurveKeyPair.generate()
        let server = try Server(context: context, allowed: [])
        let dealer = try context.socket(.dealer)
        let monitor = try ZMQSocketMonitor(dealer)
        defer { monitor.close(); dealer.close(); server.close() }
        try dealer.makeCurveClient(stranger, serverKey: server.pair.publicKey)
        try dealer.connect(server.endpoint)
        try dealer.send("let me in")

        #expect(try server.receive(within: .milliseconds(500)) == nil)
        #expect(server.zap.counters.denied >= 1)
        #expect(server.zap.counters.allowed == 0)
        let refused = Support.eventually { monitor.drain().contains { $0.kind == .handshakeFailedAuth && $0.value == 400 } }
        #expect(refused)
    }

    @Test func aClientExpectingAnotherServerKeyGetsNothingAndNeverCompletesTheHandshake() throws {
        let context = try ZMQContext()
        let client = try ZMQCurveKeyPair.generate()
        let impostorKey = try ZMQCurveKeyPair.generate().publicKey
        let server = try Server(context: context, allowed: [client.publicKey])
        let dealer = try context.socket(.dealer)
        let monitor = try ZMQSocketMonitor(dealer)
        defer { monitor.close(); dealer.close(); server.close() }
        try dealer.makeCurveClient(client, serverKey: impostorKey)
        try dealer.connect(server.endpoint)
        try dealer.send("hello")

        #expect(try server.receive(within: .milliseconds(500)) == nil)
        // The server cannot open the client's HELLO: ZAP is never even asked.
        #expect(server.requests.isEmpty)
        var events: [ZMQMonitorEvent] = []
        let sawDisconnect = Support.eventually {
            events += monitor.drain()
            return events.contains { $0.kind == .connected } && events.contains { $0.kind == .disconnected }
        }
        #expect(sawDisconnect)
        #expect(!events.contains { $0.kind == .handshakeSucceeded })
    }

    @Test func aPlainClientGetsNothingAndSeesAMechanismMismatch() throws {
        let context = try ZMQContext()
        let server = try Server(context: context, allowed: [])
        let dealer = try context.socket(.dealer)
        let monitor = try ZMQSocketMonitor(dealer)
        defer { monitor.close(); dealer.close(); server.close() }
        try dealer.connect(server.endpoint)
        try dealer.send("hello")

        #expect(try server.receive(within: .milliseconds(500)) == nil)
        var events: [ZMQMonitorEvent] = []
        let mismatch = Support.eventually {
            events += monitor.drain()
            return events.contains { $0.kind == .handshakeFailedProtocol && $0.value == ZMQMonitorEvent.mechanismMismatch }
        }
        #expect(mismatch, "events: \(events.map { "\($0.kind)=\($0.value)" })")
        #expect(!events.contains { $0.kind == .handshakeSucceeded })
    }

    @Test func aPubSubOverCurveDeliversOnlyToAllowedSubscribers() throws {
        let context = try ZMQContext()
        let zap = try ZMQZapHandler(context: context)
        let serverPair = try ZMQCurveKeyPair.generate()
        let member = try ZMQCurveKeyPair.generate()
        let outsider = try ZMQCurveKeyPair.generate()
        let pub = try context.socket(.pub)
        let subs = try [context.socket(.sub), context.socket(.sub)]
        defer { subs.forEach { $0.close() }; pub.close(); zap.close() }
        try pub.makeCurveServer(serverPair, zapDomain: "test.data")
        let endpoint = try Support.bindLoopback(pub)
        for (sub, pair) in zip(subs, [member, outsider]) {
            try sub.makeCurveClient(pair, serverKey: serverPair.publicKey)
            try sub.subscribe("t")
            try sub.connect(endpoint)
        }
        let poller = ZMQPoller()
        let zapToken = try poller.register(zap.socket)
        let memberToken = try poller.register(subs[0])
        var memberGot = 0
        let deadline = ContinuousClock.now + .seconds(5)
        while memberGot < 5, ContinuousClock.now < deadline {
            try pub.sendMultipart(["t", "v"], flags: .dontWait)
            _ = try poller.poll(timeout: .milliseconds(5))
            if poller.isReadable(zapToken) {
                zap.answerPending { $0.clientKey == member.publicKey ? .allow(userID: "member") : .deny(reason: "not a member") }
            }
            if poller.isReadable(memberToken) { while try subs[0].tryReceiveMultipart() != nil { memberGot += 1 } }
        }
        #expect(memberGot >= 5)
        #expect(try subs[1].tryReceiveMultipart() == nil)
        #expect(zap.counters.allowed == 1)
        #expect(zap.counters.denied >= 1)
    }

    @Test func aSecondZapHandlerInOneContextIsRefused() throws {
        let context = try ZMQContext()
        let zap = try ZMQZapHandler(context: context)
        defer { zap.close() }
        let error = #expect(throws: ZMQError.self) { _ = try ZMQZapHandler(context: context) }
        #expect(error?.code == .addressInUse)
    }

    @Test func theZapParserRefusesRequestsNotInTheZapForm() throws {
        #expect(ZMQZapHandler.parseForTesting([[1], [], Support.bytes("2.0"), [], [], [], [], Support.bytes("NULL")]) == false)
        #expect(ZMQZapHandler.parseForTesting([[1], [], Support.bytes("1.0"), [7], [], [], [], Support.bytes("CURVE"), [1, 2]]) == false)
        #expect(ZMQZapHandler.parseForTesting([[1], [], Support.bytes("1.0"), [7], [], [], [], Support.bytes("NULL")]) == true)
    }
}
