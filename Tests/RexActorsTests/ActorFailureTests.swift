import Distributed
import RexActors
import Testing

/// Every failure path on the in-memory network, timed by the test clock.
@Suite(.timeLimit(.minutes(1))) struct ActorFailureTests {
    @Test func aCallPastItsDeadlineFailsAndItsLateReplyIsCounted() async throws {
        let pair = try await Pair()
        pair.network.hold(to: "n2")
        let call = Task { try await pair.remote.add(1) }
        #expect(await pair.clock.advance(by: .milliseconds(4_999)))
        #expect(pair.network.heldFrames(to: "n2") == 1)
        pair.clock.clock.advance(by: .milliseconds(1))
        let error = await #expect(throws: ActorCallError.self) { try await call.value }
        #expect(error?.code == .deadlineExceeded)
        #expect(pair.n1.metrics.deadlinesExpired == 1)
        // The call still runs on n2 once its frame gets there; the reply finds nobody waiting.
        pair.network.release(to: "n2")
        #expect(await eventually { pair.n1.metrics.unknownReplies == 1 })
        #expect(pair.n1.metrics.repliesMatched == 0)
    }

    @Test func aPerCallDeadlineOverridesTheDefault() async throws {
        let pair = try await Pair()
        pair.network.hold(to: "n2")
        let call = Task { try await ClusterActorSystem.withDeadline(.milliseconds(200)) { try await pair.remote.add(1) } }
        #expect(await pair.clock.advance(by: .milliseconds(200)))
        let error = await #expect(throws: ActorCallError.self) { try await call.value }
        #expect(error?.code == .deadlineExceeded)
    }

    @Test func aReplyBeforeTheDeadlineCancelsTheTimer() async throws {
        let pair = try await Pair()
        #expect(try await pair.remote.add(2) == 2)
        #expect(pair.clock.clock.sleeperCount == 0)  // no timer left behind
        pair.clock.clock.advance(by: .seconds(10))
        #expect(pair.n1.metrics.deadlinesExpired == 0)
    }

    @Test(arguments: [ActorMemberStatus.dead, .left])
    func aCallToADownMemberFailsAtOnce(_ status: ActorMemberStatus) async throws {
        let pair = try await Pair()
        pair.network.setStatus("n2", status)
        let error = await #expect(throws: ActorCallError.self) { try await pair.remote.add(1) }
        #expect(error?.code == (status == .dead ? .memberDead : .memberLeft))
        #expect(error?.message.contains("n2") == true)
        #expect(pair.network.sentFrames.filter { $0.to == "n2" }.isEmpty)
        // One-way too.
        await #expect(throws: ActorCallError.self) { try await pair.remote.record(1) }
        // Back alive: calls go through again.
        pair.network.setStatus("n2", .alive)
        #expect(try await pair.remote.add(1) == 1)
    }

    @Test(arguments: [ActorMemberStatus.dead, .left])
    func aCallInFlightFailsWhenItsMemberGoes(_ status: ActorMemberStatus) async throws {
        let pair = try await Pair()
        pair.network.hold(to: "n2")
        let call = Task { try await pair.remote.add(1) }
        #expect(await pair.clock.clock.waitForSleepers(1))  // sent: its deadline is parked
        pair.network.setStatus("n2", status)
        pair.clock.clock.advance(by: .seconds(5))  // were it still waiting, its deadline would end it
        let error = await #expect(throws: ActorCallError.self) { try await call.value }
        #expect(error?.code == (status == .dead ? .memberDead : .memberLeft))
        #expect(error?.message.contains("in flight") == true)
        #expect(pair.n1.metrics.callsFailedByMembership == 1)
        #expect(pair.clock.clock.sleeperCount == 0)  // its timer went with it
    }

    @Test func outboundCallsPerMemberAreBounded() async throws {
        var client = ClusterActorSystemSettings()
        client.maxOutboundCallsPerMember = 2
        let pair = try await Pair(client: client)
        pair.network.hold(to: "n2")
        let first = Task { try await pair.remote.add(1) }
        let second = Task { try await pair.remote.add(1) }
        #expect(await pair.clock.clock.waitForSleepers(2))
        let error = await #expect(throws: ActorCallError.self) { try await pair.remote.add(1) }
        #expect(error?.code == .tooManyInFlight)
        #expect(pair.network.heldFrames(to: "n2") == 2)
        pair.network.release(to: "n2")
        let results = [try await first.value, try await second.value].sorted()
        #expect(results == [1, 2])
        #expect(try await pair.remote.add(1) == 3)  // room again
    }

    @Test func inboundCallsPerMemberAreBounded() async throws {
        var server = ClusterActorSystemSettings()
        server.maxInboundCallsPerMember = 1
        let gate = Gate()
        let pair = try await Pair(server: server, gate: gate)
        let blocked = Task { try await pair.remote.blocked() }
        #expect(await eventually { gate.arrived == 1 })
        let error = await #expect(throws: ActorCallError.self) { try await pair.remote.add(1) }
        #expect(error?.code == .tooManyInFlight)
        #expect(pair.n2.metrics.inboundRejected == 1)
        gate.open()
        #expect(try await blocked.value == 0)
        #expect(try await pair.remote.add(1) == 1)
    }

    @Test func argumentsResultsAndFramesAreBounded() async throws {
        var settings = ClusterActorSystemSettings()
        settings.maxArgumentBytes = 64
        let pair = try await Pair(client: settings, server: settings)
        let sentBefore = pair.network.sentFrames.count
        let argument = await #expect(throws: ActorCallError.self) { try await pair.remote.echo([UInt8](repeating: 1, count: 65)) }
        #expect(argument?.code == .argumentTooLarge)
        #expect(pair.network.sentFrames.count == sentBefore)
        #expect(try await pair.remote.echo([UInt8](repeating: 1, count: 63)).count == 63)
        let result = await #expect(throws: ActorCallError.self) { try await pair.remote.large(100) }
        #expect(result?.code == .argumentTooLarge)

        var small = ClusterActorSystemSettings()
        small.maxFrameBytes = 48
        let tight = try await Pair(client: small, server: small)
        let frame = await #expect(throws: ActorCallError.self) { try await tight.remote.echo([UInt8](repeating: 1, count: 40)) }
        #expect(frame?.code == .frameTooLarge)
        tight.network.inject([UInt8](repeating: 1, count: 49), from: "n1", to: "n2")
        #expect(tight.n2.metrics.oversizedFrames == 1)
    }

    @Test func malformedFramesAreCountedAndDropped() async throws {
        let pair = try await Pair()
        let garbage: [[UInt8]] = [
            [],
            [9, 1],  // unknown version
            [1, 99],  // unknown kind
            [1, 1, 0, 0],  // truncated call
            [1, 1] + [UInt8](repeating: 0, count: 16) + [200],  // name length past the end
            [1, 1] + [UInt8](repeating: 0, count: 16) + [0, 1, 255, 255, 255, 255],  // argument past the end
            [1, 4] + [UInt8](repeating: 0, count: 8) + [0],  // trailing byte
            [1, 5] + [UInt8](repeating: 0, count: 8) + [3, 65],  // error code cut short
        ]
        for frame in garbage { pair.network.inject(frame, from: "n1", to: "n2") }
        #expect(pair.n2.metrics.malformedFrames == garbage.count)
        // Seeded noise: anything goes, nothing traps, and the system keeps working.
        var generator = SplitMix(seed: 28)
        for _ in 0..<2_000 {
            let count = Int(generator.next() % 64)
            var frame = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if count > 2 {
                frame[0] = 1
                frame[1] = UInt8(1 + generator.next() % 7)
            }
            pair.network.inject(frame, from: "n3", to: "n2")
            pair.network.inject(frame, from: "n2", to: "n1")
        }
        #expect(try await pair.remote.add(1) == 1)
    }

    @Test func aReplyFromAnotherMemberIsForgedAndDropped() async throws {
        let pair = try await Pair()
        pair.network.hold(to: "n2")
        let call = Task { try await pair.remote.add(5) }
        #expect(await pair.clock.clock.waitForSleepers(1))
        // Call ids start at 1: n3 answers call 1 of n1 with 666.
        var forged: [UInt8] = [1, 3, 0, 0, 0, 0, 0, 0, 0, 1, 4]
        forged += [0, 0, 0, 0, 0, 0, 2, 154]
        pair.network.inject(forged, from: "n3", to: "n1")
        #expect(pair.n1.metrics.forgedReplies == 1)
        pair.network.inject(forged.prefix(2) + [0, 0, 0, 0, 0, 0, 0, 9] + forged.dropFirst(10), from: "n2", to: "n1")
        #expect(pair.n1.metrics.unknownReplies == 1)
        pair.network.release(to: "n2")
        #expect(try await call.value == 5)  // the real reply still lands
    }

    @Test func aCheckInClaimingThisMembersActorIsDropped() async throws {
        let pair = try await Pair()
        // n2 cannot speak for n1's actors: a check-in arriving at n1 names n2's actor, and one that
        // would name n1's own (a loop through the transport) is refused.
        pair.network.inject([1, 6, 1, 107, 0, 0, 0, 0, 0, 0, 0, 1], from: "n1", to: "n1")
        #expect(pair.n1.metrics.malformedFrames == 1)
    }

    @Test func oneWayCallsReturnOnceSentAndRunInOrder() async throws {
        let pair = try await Pair()
        pair.network.hold(to: "n2")
        for value in 1...50 { try await pair.remote.record(value) }  // returns with the frame held
        #expect(pair.network.heldFrames(to: "n2") == 50)
        #expect(pair.n1.metrics.oneWayCallsSent == 50)
        pair.network.release(to: "n2")
        try await pair.remote.record(-1)  // throws on n2: counted there, not here
        #expect(await eventually { pair.n2.metrics.oneWayFailures == 1 })
        #expect(try await pair.remote.history() == Array(1...50))
    }

    @Test func shutdownFailsWaitingAndLaterCalls() async throws {
        let pair = try await Pair()
        pair.network.hold(to: "n2")
        let call = Task { try await pair.remote.add(1) }
        #expect(await pair.clock.clock.waitForSleepers(1))
        pair.n1.shutdown()
        pair.clock.clock.advance(by: .seconds(5))  // were it still waiting, its deadline would end it
        let waiting = await #expect(throws: ActorCallError.self) { try await call.value }
        #expect(waiting?.code == .shutDown)
        let later = await #expect(throws: ActorCallError.self) { try await pair.remote.add(1) }
        #expect(later?.code == .shutDown)
    }

    @Test func theTransportRefusingACallFailsIt() async throws {
        let system = ClusterActorSystem(node: "n1", transport: ActorTransport { _, _ in false })
        try await system.register(Counter.callTargets)
        let remote = try Counter.resolve(id: ClusterActorID(node: "n2", number: 1), using: system)
        let error = await #expect(throws: ActorCallError.self) { try await remote.add(1) }
        #expect(error?.code == .transportBusy)
        #expect(system.metrics.transportRefusals == 1)
        await #expect(throws: ActorCallError.self) { try await remote.record(1) }
        #expect(system.metrics.transportRefusals == 2)
    }
}

/// A seeded generator (SplitMix64): the same noise on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
