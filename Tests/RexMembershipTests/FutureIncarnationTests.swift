import RexMembership
import Testing

/// `maxIncarnationLead`: incarnations are start times in ms, so one far ahead of this member's
/// clock is a forgery — above all `UInt64.max`, which no member could ever refute, and which on
/// a plain cluster pinned a member dead until its tombstone expired (issue 31's leftover).
@Suite final class FutureIncarnationTests {
    var out: [MembershipDirective] = []
    /// This member started at t = 1,000,000 ms (its incarnation), and takes at most 1 s ahead.
    static let started: UInt64 = 1_000_000

    func machine() -> Membership {
        var settings = MembershipSettings()
        settings.maxIncarnationLead = .seconds(1)
        guard var membership = Membership(id: "a", address: "addr-a", incarnation: Self.started, settings: settings, seed: 1) else {
            preconditionFailure("valid id")
        }
        for peer in ["b", "c"] { membership.add(peer, address: "addr-\(peer)", incarnation: Self.started, now: .zero, into: &out) }
        return membership
    }

    func message(from sender: String, incarnation: UInt64, gossip: [MemberUpdate] = []) -> MembershipMessage {
        MembershipMessage(sender: sender, senderAddress: "addr-\(sender)", senderIncarnation: incarnation, body: .gossip, gossip: gossip)
    }

    @Test func aForgedMaximumIsRefusedFromTheSenderInGossipAndAboutThisMember() {
        var membership = machine()
        // "b" at UInt64.max, as the dead-port takeover forged it.
        membership.receive(message(from: "b", incarnation: .max), now: .milliseconds(10), into: &out)
        #expect(membership.member("b")?.incarnation == Self.started)
        // c gossips b dead at the maximum, and this member dead at the maximum.
        let forged = [
            MemberUpdate(Member(id: "b", address: "addr-b", status: .dead, incarnation: .max)),
            MemberUpdate(Member(id: "a", address: "addr-a", status: .dead, incarnation: .max)),
        ]
        membership.receive(message(from: "c", incarnation: Self.started, gossip: forged), now: .milliseconds(20), into: &out)
        #expect(membership.member("b")?.status == .alive)
        #expect(membership.me.incarnation == Self.started, "nothing to refute: the claim was never taken")
        #expect(membership.counters.futureIncarnations == 3)
    }

    /// b restarts (its incarnation: the new start time) after a forged death at a high but
    /// plausible incarnation: it refutes, one above, and is alive again.
    @Test func aRestartedMemberRefutesAnyIncarnationTakenAndComesBack() {
        var membership = machine()
        let forged = MemberUpdate(Member(id: "b", address: "addr-b", status: .dead, incarnation: Self.started + 900))
        membership.receive(message(from: "c", incarnation: Self.started, gossip: [forged]), now: .milliseconds(100), into: &out)
        #expect(membership.member("b")?.status == .dead)
        membership.receive(message(from: "b", incarnation: Self.started + 901), now: .milliseconds(200), into: &out)
        #expect(membership.member("b")?.status == .alive)
        #expect(membership.member("b")?.incarnation == Self.started + 901)
        #expect(membership.counters.futureIncarnations == 0)
    }

    /// The ceiling is this member's clock plus the lead: an incarnation refused now is taken
    /// once the clock has caught up.
    @Test func theCeilingMovesWithTheClock() {
        var membership = machine()
        let ahead = Self.started + 1_500
        membership.receive(message(from: "b", incarnation: ahead), now: .zero, into: &out)
        #expect(membership.member("b")?.incarnation == Self.started)
        membership.receive(message(from: "b", incarnation: ahead), now: .milliseconds(600), into: &out)
        #expect(membership.member("b")?.incarnation == ahead)
        #expect(membership.counters.futureIncarnations == 1)
    }

    @Test func withoutALeadEveryIncarnationIsTaken() {
        var membership = MembershipTests.machine()
        membership.receive(message(from: "b", incarnation: .max), now: .zero, into: &out)
        #expect(membership.member("b")?.incarnation == .max)
        #expect(membership.counters.futureIncarnations == 0)
    }
}
