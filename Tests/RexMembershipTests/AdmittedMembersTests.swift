import RexMembership
import Testing

/// `admittedIDs`: a secured cluster's members take no stranger, whoever vouches for it.
@Suite final class AdmittedMembersTests {
    var out: [MembershipDirective] = []

    func machine() -> Membership {
        var membership = MembershipTests.machine()
        membership.admittedIDs = ["a", "b", "c", "d"]
        return membership
    }

    @Test func gossipAboutAStrangerFromAMemberIsRefusedAndCounted() {
        var membership = machine()
        let stranger = MemberUpdate(Member(id: "rogue", address: "addr-rogue"))
        membership.receive(MembershipTests.message(from: "b", .ping(sequence: 1), gossip: [stranger]), now: .zero, into: &out)
        #expect(membership.member("rogue") == nil)
        #expect(membership.counters.strangersRefused == 1)
        #expect(!out.contains { if case .statusChanged(let member, _) = $0 { member.id == "rogue" } else { false } })
        // The member's own message is still answered: only the stranger is refused.
        #expect(out.contains { if case .send(let message, _) = $0 { message.body == .ack(sequence: 1) } else { false } })
    }

    @Test func aStrangerInAJoinTableOrSendingItselfIsRefused() {
        var membership = machine()
        let table = [MemberUpdate(Member(id: "rogue", address: "addr-rogue")), MemberUpdate(Member(id: "c", address: "addr-c", incarnation: 3))]
        membership.receive(MembershipTests.message(from: "b", .joinReply(members: table)), now: .zero, into: &out)
        #expect(membership.member("rogue") == nil)
        #expect(membership.member("c")?.incarnation == 3, "a member in the same table is taken")
        // A message from the stranger itself (a plain transport would let it through): not
        // taken, and not answered (a join would get the table).
        membership.receive(MembershipTests.message(from: "intruder", .join(members: [], wantsReply: true)), now: .zero, into: &out)
        #expect(membership.member("intruder") == nil)
        #expect(!out.contains { if case .send(_, let destination) = $0 { destination.id == "intruder" } else { false } })
        #expect(membership.counters.strangersRefused == 2)
    }

    @Test func withoutAdmittedIDsAnyoneCanJoin() {
        var membership = MembershipTests.machine()
        membership.receive(MembershipTests.message(from: "newcomer", .join(members: [], wantsReply: true)), now: .zero, into: &out)
        #expect(membership.member("newcomer")?.status == .alive)
        #expect(membership.counters.strangersRefused == 0)
    }
}
