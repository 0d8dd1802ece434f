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
        let table = [
            MemberUpdate(Member(id: "rogue", address: "addr-rogue")), MemberUpdate(Member(id: "c", address: "addr-c", incarnation: 3)),
        ]
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

    /// The authority revoked b's last key: b is left here at once (its connections go), is not
    /// probed, and neither it nor others can bring it back; no rumour about it goes out.
    @Test func aMemberNoLongerAdmittedIsDeclaredLeftAndStaysLeft() {
        var membership = machine()
        membership.receive(MembershipTests.message(from: "b", .ping(sequence: 1)), now: .milliseconds(10), into: &out)
        out.removeAll()
        membership.admit(["a", "c", "d"], now: .milliseconds(20), into: &out)
        #expect(membership.member("b")?.status == .left)
        #expect(
            out.contains { if case .statusChanged(let member, .alive) = $0 { member.id == "b" && member.status == .left } else { false } })
        #expect(membership.counters.membersRevoked == 1)
        #expect(membership.admittedIDs == ["a", "c", "d"])
        // Not gossiped: every member takes the statement itself.
        membership.receive(MembershipTests.message(from: "c", .ping(sequence: 2)), now: .milliseconds(30), into: &out)
        let ack = out.compactMap { if case .send(let message, let to) = $0, to.id == "c" { message } else { nil } }.last
        #expect(ack?.gossip.contains { $0.member.id == "b" } == false)
        // b speaks again at a higher incarnation; c vouches for it: neither is taken.
        let refutation = MembershipMessage(sender: "b", senderAddress: "addr-b", senderIncarnation: 9, body: .ping(sequence: 3))
        membership.receive(refutation, now: .milliseconds(40), into: &out)
        let vouched = MemberUpdate(Member(id: "b", address: "addr-b", status: .alive, incarnation: 10))
        membership.receive(MembershipTests.message(from: "c", .gossip, gossip: [vouched]), now: .milliseconds(50), into: &out)
        #expect(membership.member("b")?.status == .left)
        #expect(membership.counters.strangersRefused == 2)
        // Never probed again.
        out.removeAll()
        for step in 1...40 { membership.tick(now: .milliseconds(50) + membership.settings.protocolPeriod * step, into: &out) }
        #expect(!out.contains { if case .send(_, let to) = $0 { to.id == "b" } else { false } })
    }

    /// A member admitted while the machine runs is taken from its first message.
    @Test func aMemberAdmittedLaterIsTakenFromItsFirstMessage() {
        var membership = machine()
        membership.receive(MembershipTests.message(from: "e", .join(members: [], wantsReply: true)), now: .zero, into: &out)
        #expect(membership.member("e") == nil)
        membership.admit(["a", "b", "c", "d", "e"], now: .milliseconds(10), into: &out)
        membership.receive(MembershipTests.message(from: "e", .join(members: [], wantsReply: true)), now: .milliseconds(20), into: &out)
        #expect(membership.member("e")?.status == .alive)
        #expect(membership.counters.membersRevoked == 0)
    }

    @Test func withoutAdmittedIDsAnyoneCanJoin() {
        var membership = MembershipTests.machine()
        membership.receive(MembershipTests.message(from: "newcomer", .join(members: [], wantsReply: true)), now: .zero, into: &out)
        #expect(membership.member("newcomer")?.status == .alive)
        #expect(membership.counters.strangersRefused == 0)
    }
}

/// A death notice about a member this one heard from first-hand just now (the other side of a
/// healed partition still gossiping its verdict) only makes it suspect, so the member refutes
/// before it is cut off; an older one is taken as is.
@Suite final class StaleDeathNoticeTests {
    var out: [MembershipDirective] = []

    @Test func aMemberHeardFromJustNowIsSuspectedNotDeclaredDead() {
        var membership = MembershipTests.machine()
        membership.receive(MembershipTests.message(from: "b", .ping(sequence: 1)), now: .milliseconds(1000), into: &out)
        let notice = MemberUpdate(Member(id: "b", address: "addr-b", status: .dead, incarnation: 0))
        membership.receive(MembershipTests.message(from: "c", .gossip, gossip: [notice]), now: .milliseconds(1050), into: &out)
        #expect(membership.member("b")?.status == .suspect)
        // b refutes at a higher incarnation: alive again, never dead here.
        let refutation = MembershipMessage(sender: "b", senderAddress: "addr-b", senderIncarnation: 1, body: .ping(sequence: 2))
        membership.receive(refutation, now: .milliseconds(1100), into: &out)
        #expect(membership.member("b")?.status == .alive)
        #expect(!out.contains { if case .statusChanged(let member, _) = $0 { member.id == "b" && member.status == .dead } else { false } })
    }

    /// A healed cut's stalled connections deliver many copies of one stale verdict at once: the
    /// second copy finds the member suspect (from the first) and must not make it dead either.
    @Test func repeatedNoticesAboutAMemberHeardFromJustNowKeepItSuspectAndTellIt() {
        var membership = MembershipTests.machine()
        membership.receive(MembershipTests.message(from: "b", .ping(sequence: 1)), now: .milliseconds(1000), into: &out)
        let notice = MemberUpdate(Member(id: "b", address: "addr-b", status: .dead, incarnation: 0))
        out.removeAll()
        for copy in 0..<10 {
            membership.receive(
                MembershipTests.message(from: copy.isMultiple(of: 2) ? "c" : "d", .gossip, gossip: [notice]),
                now: .milliseconds(1010 + copy), into: &out)
        }
        #expect(membership.member("b")?.status == .suspect)
        #expect(!out.contains { if case .statusChanged(let member, _) = $0 { member.status == .dead } else { false } })
        // b is told directly, once per distinct suspecter (c, then d), not once per copy.
        let toldB = out.filter {
            if case .send(let message, let destination) = $0 {
                destination.id == "b" && message.gossip.first?.member.id == "b"
            } else {
                false
            }
        }
        #expect(toldB.count == 2)
    }

    @Test func aNoticeAboutAMemberNotHeardFromLatelyIsTaken() {
        var membership = MembershipTests.machine()
        membership.receive(MembershipTests.message(from: "b", .ping(sequence: 1)), now: .milliseconds(1000), into: &out)
        let notice = MemberUpdate(Member(id: "b", address: "addr-b", status: .dead, incarnation: 0))
        let later = Duration.milliseconds(1000) + membership.settings.protocolPeriod * 3
        membership.receive(MembershipTests.message(from: "c", .gossip, gossip: [notice]), now: later, into: &out)
        #expect(membership.member("b")?.status == .dead)
        // And one never heard from first-hand (only configured) is taken at once too.
        let aboutD = MemberUpdate(Member(id: "d", address: "addr-d", status: .dead, incarnation: 0))
        membership.receive(MembershipTests.message(from: "c", .gossip, gossip: [aboutD]), now: later, into: &out)
        #expect(membership.member("d")?.status == .dead)
    }
}
