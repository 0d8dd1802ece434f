import RexMembership
import Testing

/// Whole-cluster behaviour on the simulated network (virtual clock, real wire encoding, seeded
/// faults): the targets of issue 19, asserted at the sizes it names.
@Suite(.serialized) struct MembershipSimulationTests {
    let period = MembershipSettings().protocolPeriod

    /// Records every "dead" a member announces about another, to find false positives.
    final class DeathLog {
        var deaths: [(observer: Int, member: String, at: Duration)] = []
        var suspicions = 0
    }

    func logged(_ simulation: inout MembershipSimulation) -> DeathLog {
        let log = DeathLog()
        simulation.onStatusChange = { observer, member, _, at in
            if member.status == .dead { log.deaths.append((observer, member.id, at)) }
            if member.status == .suspect { log.suspicions += 1 }
        }
        return log
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func aKilledMemberIsSeenDeadByAllWithinThreeSecondsAtAHundred(seed: UInt64) async {
        var simulation = MembershipSimulation(count: 100, network: .init(loss: 0.01), seed: seed)
        let log = logged(&simulation)
        await simulation.advance(to: .seconds(2))
        simulation.crash(42)
        let seen = await simulation.advance(for: .seconds(3), until: { $0.everyone(sees: 42, as: [.dead]) })
        #expect(seen != nil, "not everyone saw m42 dead within 3 s")
        #expect(log.deaths.allSatisfy { $0.member == "m42" }, "false positives: \(log.deaths.filter { $0.member != "m42" })")
        let stalls = simulation.stalls
        #expect(stalls == 0)
    }

    @Test func noFalsePositiveUnderTenPercentLoss() async {
        var simulation = MembershipSimulation(count: 100, network: .init(loss: 0.10), seed: 7)
        let log = logged(&simulation)
        await simulation.advance(to: .seconds(10))
        #expect(log.deaths.isEmpty, "declared dead while alive: \(log.deaths.prefix(3))")
        #expect(log.suspicions > 0, "10 % loss makes some probes fail (the test exercises refutation)")
        let allActive = simulation.running.allSatisfy { simulation.everyone(sees: $0, as: [.alive, .suspect]) }
        #expect(allActive)
    }

    @Test func aPausedMemberRefutesAndIsNeverDeclaredDead() async {
        var simulation = MembershipSimulation(count: 100, network: .init(loss: 0.01), seed: 11)
        let log = logged(&simulation)
        await simulation.advance(to: .seconds(2))
        let incarnation = simulation.members[17].me.incarnation
        // Shorter than the suspicion timeout's floor (0.8 s at N = 100) less the time to spread a refutation.
        simulation.pause(17, for: .milliseconds(400))
        await simulation.advance(to: simulation.now + .seconds(5))
        #expect(log.suspicions > 0, "the pause was noticed")
        #expect(log.deaths.isEmpty, "declared dead: \(log.deaths.prefix(3))")
        let refutedIncarnation = simulation.members[17].me.incarnation
        #expect(refutedIncarnation > incarnation, "it refuted by raising its incarnation")
        let seenAlive = simulation.everyone(sees: 17, as: [.alive])
        #expect(seenAlive)
    }

    @Test func aLongPartitionHealsIntoOneCluster() async {
        var simulation = MembershipSimulation(count: 60, seed: 5)
        await simulation.advance(to: .seconds(1))
        simulation.partition((0..<60).map { $0 < 20 ? 1 : 0 })
        // Longer than the longest suspicion timeout: each side declares the other dead.
        await simulation.advance(to: simulation.now + .seconds(8))
        let (zeroSeenBy59, fiftyNineSeenBy0) = (simulation.status(of: 0, seenBy: 59), simulation.status(of: 59, seenBy: 0))
        #expect(zeroSeenBy59 == .dead)
        #expect(fiftyNineSeenBy0 == .dead)
        simulation.heal()
        let merged = await simulation.advance(for: .seconds(20), step: .milliseconds(100)) { sim in
            sim.running.allSatisfy { sim.everyone(sees: $0, as: [.alive]) }
        }
        #expect(merged != nil, "the sides did not merge")
        if let merged { print("a 20/40 partition of 8 s merged \(merged - .seconds(9)) after healing") }
    }

    @Test func aShortPartitionOfAFewMembersLeavesNoDeath() async {
        var simulation = MembershipSimulation(count: 100, seed: 6)
        let log = logged(&simulation)
        await simulation.advance(to: .seconds(2))
        simulation.partition((0..<100).map { $0 < 3 ? 1 : 0 })
        await simulation.advance(to: simulation.now + .milliseconds(300))
        simulation.heal()
        await simulation.advance(to: simulation.now + .seconds(5))
        #expect(log.deaths.isEmpty, "declared dead: \(log.deaths.prefix(3))")
        let allAlive = simulation.running.allSatisfy { simulation.everyone(sees: $0, as: [.alive]) }
        #expect(allAlive)
    }

    @Test func aNodeJoiningThroughOneSeedSeesEveryoneAliveWithinTwoSeconds() async {
        var simulation = MembershipSimulation(count: 100, seed: 8)
        await simulation.advance(to: .seconds(1))
        let newcomer = simulation.addMember()
        let start = simulation.now
        simulation.join(newcomer, seeds: [0])
        let seesAll = await simulation.advance(for: .seconds(2), step: .milliseconds(5)) { sim in
            (0..<100).allSatisfy { sim.status(of: $0, seenBy: newcomer) == .alive }
        }
        #expect(seesAll != nil, "the newcomer did not see all 100 alive within 2 s")
        let allSeeIt = await simulation.advance(for: .seconds(3), step: .milliseconds(5)) { $0.everyone(sees: newcomer, as: [.alive]) }
        #expect(allSeeIt != nil)
        if let seesAll, let allSeeIt {
            print("join at N = 100: newcomer sees all after \(seesAll - start), all see it after \(allSeeIt - start)")
        }
    }

    @Test func aJoinRetriesUntilTheSeedAnswers() async {
        var simulation = MembershipSimulation(count: 10, seed: 9)
        await simulation.advance(to: .seconds(1))
        let newcomer = simulation.addMember()
        simulation.partition((0...10).map { $0 == newcomer ? 1 : 0 })
        simulation.join(newcomer, seeds: [3])
        await simulation.advance(to: simulation.now + .milliseconds(1500))
        let joinedEarly = simulation.members[newcomer].isJoined
        #expect(!joinedEarly)
        simulation.heal()
        let joined = await simulation.advance(for: .seconds(3)) {
            $0.everyone(sees: newcomer, as: [.alive]) && $0.members[newcomer].isJoined
        }
        #expect(joined != nil)
    }

    @Test func aGracefulLeaveIsSeenByAllWithinAFewPeriods() async {
        var simulation = MembershipSimulation(count: 100, network: .init(loss: 0.01), seed: 10)
        let log = logged(&simulation)
        await simulation.advance(to: .seconds(1))
        simulation.leave(30)
        let start = simulation.now
        let seen = await simulation.advance(for: .seconds(2), step: .milliseconds(5)) { $0.everyone(sees: 30, as: [.left]) }
        #expect(
            seen.map { ($0 - start) <= period * 8 } == true,
            "seen left by all after \(seen.map { $0 - start }.map(String.init(describing:)) ?? "never")")
        simulation.crash(30)
        await simulation.advance(to: simulation.now + .seconds(5))
        #expect(log.deaths.isEmpty, "a member that left is not declared dead: \(log.deaths.prefix(3))")
        let seenLeft = simulation.everyone(sees: 30, as: [.left])
        #expect(seenLeft)
    }

    /// One change (a newcomer announced by its seed) reaches all members in O(log N) periods.
    @Test func disseminationTakesLogarithmicallyManyPeriods() async {
        var measured: [(size: Int, periods: Double)] = []
        for size in [100, 200, 500] {
            var simulation = MembershipSimulation(count: size, seed: UInt64(size))
            await simulation.advance(to: .milliseconds(300))
            let newcomer = simulation.addMember()
            simulation.join(newcomer, seeds: [0])
            _ = await simulation.advance(for: .seconds(1), step: .milliseconds(1)) { $0.status(of: newcomer, seenBy: 0) != nil }
            let start = simulation.now
            guard
                let seen = await simulation.advance(
                    for: .seconds(5), step: .milliseconds(5), until: { $0.everyone(sees: newcomer, as: [.alive]) })
            else {
                Issue.record("N = \(size): the change did not reach everyone")
                continue
            }
            measured.append((size, (seen - start) / period))
        }
        print("dissemination periods: \(measured.map { "N = \($0.size): \($0.periods)" }.joined(separator: ", "))")
        for (size, periods) in measured {
            var log2 = 0.0
            var n = size
            while n > 1 { n /= 2; log2 += 1 }
            #expect(periods <= 1.5 * log2, "N = \(size): \(periods) periods")
        }
    }

    /// No cluster file: one seed, 49 members joining through it at the same moment (join
    /// replies are capped per period, so most joiners retry).
    @Test func aClusterBuiltOnlyByJoinsConverges() async {
        var simulation = MembershipSimulation(count: 1, seed: 13)
        await simulation.advance(to: .milliseconds(100))
        let joiners = (0..<49).map { _ in simulation.addMember() }
        for joiner in joiners { simulation.join(joiner, seeds: [0]) }
        let start = simulation.now
        let converged = await simulation.advance(for: .seconds(10), step: .milliseconds(50)) { sim in
            sim.running.allSatisfy { sim.everyone(sees: $0, as: [.alive]) }
        }
        #expect(converged != nil, "50 members joining at once did not converge within 10 s")
        let retried = simulation.members[0].counters.joinRepliesDropped
        #expect(retried > 0, "the burst exceeded the join replies allowed per period")
        if let converged { print("49 simultaneous joins through one seed: all see all alive after \(converged - start)") }
    }

    /// Paused past the suspicion timeout, a member is declared dead; when it resumes, the first
    /// member it talks to tells it so, it refutes and everyone has it alive again.
    @Test func aMemberDeclaredDeadThatResumesComesBack() async {
        var simulation = MembershipSimulation(count: 50, seed: 14)
        await simulation.advance(to: .seconds(1))
        simulation.pause(9, for: .seconds(6))
        await simulation.advance(to: .seconds(6.5))
        let deadForAll = simulation.everyone(sees: 9, as: [.dead])
        #expect(deadForAll)
        let back = await simulation.advance(for: .seconds(5), step: .milliseconds(50)) { $0.everyone(sees: 9, as: [.alive]) }
        #expect(back != nil)
        let sees = (0..<50).filter { $0 != 9 }.allSatisfy { simulation.status(of: $0, seenBy: 9) == .alive }
        #expect(sees, "the resumed member has everyone alive too")
    }

    /// Lifeguard: a member cut off from everyone misses the nacks of its ping-requests and slows
    /// itself down; the healthy members' score stays at 0.
    @Test func anIsolatedMemberRaisesItsOwnLocalHealthScore() async {
        var simulation = MembershipSimulation(count: 30, seed: 12)
        await simulation.advance(to: .seconds(1))
        simulation.partition((0..<30).map { $0 == 4 ? 1 : 0 })
        await simulation.advance(to: .seconds(2))
        let isolated = simulation.members[4].localHealth
        let others = (0..<30).filter { $0 != 4 }.map { simulation.members[$0].localHealth }
        #expect(isolated > 0)
        #expect(others.allSatisfy { $0 == 0 }, "\(others)")
    }

    @Test func runsAreReproducibleFromTheirSeed() async {
        func run() async -> (Int, Int, [MemberStatus?]) {
            var simulation = MembershipSimulation(count: 30, network: .init(loss: 0.05), seed: 99)
            await simulation.advance(to: .seconds(1))
            simulation.crash(3)
            await simulation.advance(to: .seconds(3))
            return (simulation.traffic.messages, simulation.traffic.bytes, (0..<30).map { simulation.status(of: 3, seenBy: $0) })
        }
        let first = await run()
        let second = await run()
        #expect(first.0 == second.0 && first.1 == second.1 && first.2 == second.2)
    }

    @Test func idleCostPerMemberIsFlatInN() async {
        var perMember: [Double] = []
        for size in [10, 100, 300] {
            var simulation = MembershipSimulation(count: size, seed: 3)
            await simulation.advance(to: .milliseconds(500))
            let before = simulation.traffic.messages
            await simulation.advance(to: .milliseconds(1500))
            perMember.append(Double(simulation.traffic.messages - before) / Double(size) / 10)
        }
        // A ping and its ack per member per period, whatever N (the heartbeats: N − 1 received).
        #expect(perMember.allSatisfy { $0 >= 1.9 && $0 <= 2.1 }, "\(perMember)")
    }
}

/// The simulations are CPU-bound: run in short slices that yield, so the tests of other targets
/// running in parallel on the same cooperative pool (real nodes, with timeouts) are not starved.
extension MembershipSimulation {
    mutating func advance(to time: Duration) async {
        while now < time {
            run(until: min(time, now + .milliseconds(20)))
            await Task.yield()
        }
    }

    mutating func advance(for limit: Duration, step: Duration = .milliseconds(10), until condition: (MembershipSimulation) -> Bool) async
        -> Duration?
    {
        let end = now + limit
        while now < end {
            run(until: min(end, now + step))
            if condition(self) { return now }
            await Task.yield()
        }
        return nil
    }
}
