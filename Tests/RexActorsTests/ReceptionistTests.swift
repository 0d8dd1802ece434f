import ActorEchoInterface
import Distributed
import RexActors
import Testing

/// The receptionist over the in-memory network: listings follow check-ins, check-outs, joins,
/// deaths and released actors.
@Suite(.timeLimit(.minutes(1))) struct ReceptionistTests {
    @Test func listingsFollowTheCluster() async throws {
        let network = InMemoryActorNetwork()
        let n1 = network.join("n1")
        let n2 = network.join("n2")
        let key = ReceptionKey<Counter>("counters")
        var listing = n1.receptionist.listing(of: key).makeAsyncIterator()
        #expect(await listing.next()?.map(\.id) == [])

        let a = Counter(actorSystem: n2)
        n2.receptionist.checkIn(a, as: key)
        #expect(await listing.next()?.map(\.id) == [a.id])

        var b: Counter? = Counter(actorSystem: n1)
        n1.receptionist.checkIn(b!, as: key)
        let bID = b!.id
        #expect(await listing.next()?.map(\.id) == [bID, a.id])

        // A member that joins later is told of the check-ins made before.
        let n3 = network.join("n3")
        var late = n3.receptionist.listing(of: key).makeAsyncIterator()
        #expect(await late.next()?.map(\.id) == [bID, a.id])

        // A released actor checks out by itself, everywhere.
        b = nil
        #expect(await listing.next()?.map(\.id) == [a.id])
        #expect(await late.next()?.map(\.id) == [a.id])

        n2.receptionist.checkOut(a, from: key)
        #expect(await listing.next()?.map(\.id) == [])
        n2.receptionist.checkIn(a, as: key)
        #expect(await listing.next()?.map(\.id) == [a.id])

        // A member declared dead leaves every listing.
        network.setStatus("n2", .dead)
        #expect(await listing.next()?.map(\.id) == [])
        #expect(await late.next()?.map(\.id) == [])
        withExtendedLifetime(a) {}
    }

    @Test func listedReferencesAreCallable() async throws {
        let network = InMemoryActorNetwork()
        let client = network.join("client")
        let server = network.join("server")
        try await client.register($Echo.callTargets)
        try await server.register(TestEcho.callTargets)
        let echo = TestEcho(actorSystem: server)
        server.receptionist.checkIn(echo, as: ReceptionKey<TestEcho>("echo"))
        var listing = client.receptionist.listing(of: ReceptionKey<$Echo>.echoes).makeAsyncIterator()
        let echoes = try #require(await listing.next())
        #expect(echoes.count == 1)
        #expect(try await echoes[0].echo([7]) == [7])
    }

    @Test func aListingEndsAtShutdown() async throws {
        let system = InMemoryActorNetwork().join("n1")
        var listing = system.receptionist.listing(of: ReceptionKey<Counter>("k")).makeAsyncIterator()
        #expect(await listing.next() == [])
        system.shutdown()
        #expect(await listing.next() == nil)
    }
}
