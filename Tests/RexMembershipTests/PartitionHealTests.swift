import RexMembership
import Testing

/// A partition into {0,1} / {2,3,4} (the hosts suite's 02_partition, in simulation) that lasts
/// past every suspicion timeout, then heals: each side declares the other dead, and when the
/// sides meet again their stale verdicts about the other side's members must never make a
/// member declare a member of its *own* side dead (that would drop a data-plane connection that
/// never broke). As over TCP, what was sent across the cut is held (up to ZeroMQ's 64 per peer)
/// and arrives in a burst at the heal: many copies of the same stale "dead" at once.
@Suite struct PartitionHealTests {
    final class Verdicts {
        /// (observer, member, status, at) for every dead or left verdict.
        var deaths: [(observer: Int, member: String, at: Duration)] = []
    }

    @Test(arguments: Array(UInt64(1)...UInt64(40)))
    func noMemberIsDeclaredDeadByItsOwnSideAcrossAHeal(seed: UInt64) {
        var simulation = MembershipSimulation(
            count: 5, network: .init(loss: 0.02, minimumDelay: .milliseconds(1), maximumDelay: .milliseconds(8), heldAcrossPartition: 64),
            seed: seed
        )
        let verdicts = Verdicts()
        simulation.onStatusChange = { observer, member, _, at in
            if !member.status.isActive { verdicts.deaths.append((observer, member.id, at)) }
        }
        let side = [1, 1, 0, 0, 0]
        simulation.run(until: .seconds(2))
        simulation.partition(side)
        let cut = simulation.now
        simulation.run(until: cut + .seconds(3))
        // Every member sees the whole other side dead by the end of the cut.
        for observer in 0..<5 {
            for member in 0..<5 where side[member] != side[observer] {
                #expect(
                    simulation.status(of: member, seenBy: observer) == .dead,
                    "m\(observer) sees m\(member) \(String(describing: simulation.status(of: member, seenBy: observer)))")
            }
        }
        simulation.heal()
        let healed = simulation.run(for: .seconds(10), step: .milliseconds(10)) { sim in
            sim.running.allSatisfy { sim.everyone(sees: $0, as: [.alive]) }
        }
        #expect(healed != nil, "the sides did not merge within 10 s")
        // Past the longest suspicion timeout: a suspicion the heal started must have been refuted, not expired.
        simulation.run(until: simulation.now + .seconds(5))
        let whole = simulation.running.allSatisfy { simulation.everyone(sees: $0, as: [.alive]) }
        #expect(whole, "not everyone alive 5 s after the merge")
        let sameSide = verdicts.deaths.filter { side[$0.observer] == side[Int($0.member.dropFirst())!] }
        #expect(sameSide.isEmpty, "same-side verdicts: \(sameSide.map { "m\($0.observer) saw \($0.member) dead at \($0.at)" })")
    }
}
