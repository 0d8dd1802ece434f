import ActorEchoInterface
import Distributed
import Foundation
import RexActors
import Testing

/// The protocol end to end on the in-memory network: ids, calls, results, thrown errors, names.
@Suite(.timeLimit(.minutes(1))) struct ActorProtocolTests {
    @Test func idsNameTheNodeAndTheActor() async throws {
        let pair = try await Pair()
        let second = Counter(actorSystem: pair.n2)
        #expect(pair.counter.id == ClusterActorID(node: "n2", number: 1))
        #expect(second.id == ClusterActorID(node: "n2", number: 2))
        #expect("\(second.id)" == "2@n2")
        // Resolving on the hosting member gives the actor itself; elsewhere a proxy.
        #expect(try Counter.resolve(id: pair.counter.id, using: pair.n2) === pair.counter)
        #expect(__isRemoteActor(pair.remote))
    }

    @Test func callsReturnValuesOfEveryEncoding() async throws {
        let pair = try await Pair()
        #expect(try await pair.remote.add(5) == 5)
        #expect(try await pair.remote.add(-2) == 3)
        let bytes: [UInt8] = Array(0..<16)
        #expect(try await pair.remote.echo(bytes) == bytes)
        #expect(try await pair.remote.mirror(Point(x: 1, y: 2), label: "abc") == Point(x: 2, y: 4))
        try await pair.remote.reset()
        #expect(try await pair.remote.add(1) == 1)
        #expect(pair.n2.metrics.callsExecuted == 6)
        #expect(pair.n1.metrics.repliesMatched == 6)
    }

    @Test func aThrownErrorComesBackDescribed() async throws {
        let pair = try await Pair()
        let error = await #expect(throws: ActorCallError.self) { try await pair.remote.refuse("closed") }
        #expect(error?.code == .remoteError)
        #expect(error?.message == "refused: closed")
        #expect(error?.errorType?.hasSuffix("Refusal") == true)
    }

    @Test func theWireCarriesTheStableNameNotTheMangledOne() async throws {
        let pair = try await Pair()
        _ = try await pair.remote.add(1)
        let call = try #require(pair.network.sentFrames.first { $0.to == "n2" })
        let text = String(decoding: call.frame, as: UTF8.self)
        #expect(text.contains("counter.add"))
        #expect(!text.contains("$s"))  // no mangled name
    }

    @Test func aRenamedLabelAndAnotherTypeKeepTheName() async throws {
        // The client knows version 1 (`add(_:)`); the server runs version 2 (`add(by:)`).
        let network = InMemoryActorNetwork()
        let n1 = network.join("n1")
        let n2 = network.join("n2")
        try await n1.register(Counter.callTargets)
        try await n2.register(CounterV2.callTargets)
        let v2 = CounterV2(actorSystem: n2)
        let old = try Counter.resolve(id: v2.id, using: n1)
        #expect(try await old.add(5) == 105)
        // A function the new version dropped answers with an error, not a crash.
        let error = await #expect(throws: ActorCallError.self) { try await old.echo([1]) }
        #expect(error?.code == .unknownTarget)
        #expect(n2.metrics.unknownTargets == 1)
    }

    @Test func aChangedSignatureFailsToDecode() async throws {
        let network = InMemoryActorNetwork()
        let n1 = network.join("n1")
        let n2 = network.join("n2")
        try await n1.register(Counter.callTargets)
        try await n2.register(CounterV3.callTargets)
        let v3 = CounterV3(actorSystem: n2)
        let old = try Counter.resolve(id: v3.id, using: n1)
        let error = await #expect(throws: ActorCallError.self) { try await old.add(5) }
        #expect(error?.code == .decodingFailed)
    }

    @Test func anUnregisteredFunctionFailsBeforeSending() async throws {
        let network = InMemoryActorNetwork()
        let n1 = network.join("n1")
        let n2 = network.join("n2")
        try await n2.register(Counter.callTargets)
        let counter = Counter(actorSystem: n2)
        let remote = try Counter.resolve(id: counter.id, using: n1)
        let error = await #expect(throws: ActorCallError.self) { try await remote.add(1) }
        #expect(error?.code == .unregisteredTarget)
        #expect(network.sentFrames.isEmpty)
    }

    @Test func anUnknownActorAnswersWithAnError() async throws {
        let pair = try await Pair()
        let ghost = try Counter.resolve(id: ClusterActorID(node: "n2", number: 99), using: pair.n1)
        let error = await #expect(throws: ActorCallError.self) { try await ghost.add(1) }
        #expect(error?.code == .unknownActor)
        #expect(pair.n2.metrics.unknownActors == 1)
    }

    @Test func aReleasedActorIsUnknown() async throws {
        let network = InMemoryActorNetwork()
        let n1 = network.join("n1")
        let n2 = network.join("n2")
        try await n1.register(Counter.callTargets)
        try await n2.register(Counter.callTargets)
        var counter: Counter? = Counter(actorSystem: n2)
        let remote = try Counter.resolve(id: counter!.id, using: n1)
        #expect(try await remote.add(1) == 1)
        counter = nil
        let error = await #expect(throws: ActorCallError.self) { try await remote.add(1) }
        #expect(error?.code == .unknownActor)
    }

    @Test func aResolvableProtocolReachesAnImplementationByInterface() async throws {
        let network = InMemoryActorNetwork()
        let client = network.join("client")
        let server = network.join("server")
        try await client.register($Echo.callTargets)  // the interface only
        try await server.register(TestEcho.callTargets)
        let echo = TestEcho(actorSystem: server)
        let remote: any Echo = try $Echo.resolve(id: echo.id, using: client)
        #expect(try await remote.echo([1, 2, 3]) == [1, 2, 3])
        try await remote.deliver([9])
        #expect(try await remote.delivered().count == 1)
    }

    @Test func aProtocolStubOverALocalActorLoopsBack() async throws {
        let network = InMemoryActorNetwork()
        let server = network.join("server")
        try await server.register($Echo.callTargets)
        try await server.register(TestEcho.callTargets)
        let echo = TestEcho(actorSystem: server)
        let stub = try $Echo.resolve(id: echo.id, using: server)
        #expect(try await stub.echo([4]) == [4])
    }

    @Test func registrationRefusesWhatTheWireCannotCarry() async throws {
        let system = InMemoryActorNetwork().join("n1")
        var generic = CallTargets<Generic>()
        generic.call("generic.identity") { _ = try await $0.identity(1) }
        let unsupported = await #expect(throws: ActorCallError.self) { try await system.register(generic) }
        #expect(unsupported?.code == .unsupported)

        var valued = CallTargets<Counter>()
        valued.oneWay("counter.add") { _ = try await $0.add(1) }
        await #expect(throws: ActorCallError.self) { try await system.register(valued) }

        var silent = CallTargets<Counter>()
        silent.call("counter.none") { _ in }
        await #expect(throws: ActorCallError.self) { try await system.register(silent) }

        var twice = CallTargets<Counter>()
        twice.call("counter.a") { _ = try await $0.add(1) }
        twice.call("counter.b") { _ = try await $0.add(1) }
        await #expect(throws: ActorCallError.self) { try await system.register(twice) }
    }
}

/// An in-test implementation of the `Echo` interface.
distributed actor TestEcho: Echo {
    typealias ActorSystem = ClusterActorSystem
    private var count = 0

    distributed func echo(_ payload: [UInt8]) -> [UInt8] { payload }
    distributed func deliver(_ payload: [UInt8]) { count += 1 }
    distributed func delivered() -> DeliveryReport { DeliveryReport(count: count, firstToLastNanoseconds: 0) }
}
