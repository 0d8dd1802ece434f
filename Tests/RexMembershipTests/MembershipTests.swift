import RexMembership
import Testing

/// The machine driven by hand, one event at a time.
@Suite final class MembershipTests {
    var out: [MembershipDirective] = []

    static func machine(_ id: String = "a", peers: [String] = ["b", "c", "d"], settings: MembershipSettings = MembershipSettings())
        -> Membership
    {
        guard var membership = Membership(id: id, address: "addr-\(id)", settings: settings, seed: 1) else {
            preconditionFailure("valid id")
        }
        var ignored: [MembershipDirective] = []
        for peer in peers { membership.add(peer, address: "addr-\(peer)", now: .zero, into: &ignored) }
        return membership
    }

    static func message(from sender: String, _ body: MembershipMessage.Body, gossip: [MemberUpdate] = []) -> MembershipMessage {
        MembershipMessage(sender: sender, senderAddress: "addr-\(sender)", body: body, gossip: gossip)
    }

    var sent: [(MembershipMessage, MembershipDestination)] {
        out.compactMap { if case .send(let message, let destination) = $0 { (message, destination) } else { nil } }
    }

    var changes: [Member] {
        out.compactMap { if case .statusChanged(let member, _) = $0 { member } else { nil } }
    }

    /// Ticks until the first ping goes out; returns its target and sequence.
    func firstPing(_ membership: inout Membership) -> (target: String, sequence: UInt32, at: Duration) {
        var now = Duration.zero
        while now < .seconds(1) {
            out.removeAll()
            membership.tick(now: now, into: &out)
            if let (message, destination) = sent.first, case .ping(let sequence) = message.body {
                return (destination.id ?? "?", sequence, now)
            }
            now += .milliseconds(1)
        }
        Issue.record("no ping within a second")
        return ("?", 0, now)
    }

    @Test func aPingIsAnsweredWithAnAckOfTheSameSequence() {
        var membership = Self.machine()
        membership.receive(Self.message(from: "b", .ping(sequence: 41)), now: .zero, into: &out)
        #expect(sent.count == 1)
        #expect(sent.first?.0.body == .ack(sequence: 41))
        #expect(sent.first?.1 == MembershipDestination(id: "b", address: "addr-b"))
    }

    @Test func aMissedAckLeadsToPingRequestsThenSuspicionThenDeath() {
        var membership = Self.machine()
        let (target, sequence, start) = firstPing(&membership)
        let settings = membership.settings
        out.removeAll()
        membership.tick(now: start + settings.pingTimeout, into: &out)
        let requests = sent.filter { if case .pingRequest(sequence, target, "addr-\(target)") = $0.0.body { true } else { false } }
        #expect(requests.count == 2, "the two other members are asked to probe \(target)")
        #expect(Set(requests.compactMap(\.1.id)).isDisjoint(with: [target, "a"]))
        out.removeAll()
        membership.tick(now: start + settings.protocolPeriod, into: &out)
        #expect(changes.map(\.id) == [target])
        #expect(membership.member(target)?.status == .suspect)
        // Nobody confirms: the lone suspicion runs its full (maximum) timeout.
        guard let deadline = membership.nextDeadline else { return }
        var now = start + settings.protocolPeriod
        var declared: Duration?
        while now < .seconds(10) && declared == nil {
            out.removeAll()
            membership.tick(now: now, into: &out)
            for change in changes where change.id == target && change.status == .dead { declared = now }
            for (message, destination) in sent {
                if case .ping(let sequence) = message.body {
                    membership.receive(Self.message(from: destination.id ?? "?", .ack(sequence: sequence)), now: now, into: &out)
                }
            }
            now = max(now + .milliseconds(1), min(deadline, now + .milliseconds(50)))
        }
        let floor = settings.protocolPeriod * (settings.suspicionMultiplier * 1)
        let ceiling = floor * settings.suspicionMaximumMultiplier
        #expect(
            declared.map { $0 - (start + settings.protocolPeriod) >= ceiling - .milliseconds(60) } == true,
            "declared at \(String(describing: declared))")
    }

    @Test func anAckInTimeKeepsTheTargetAlive() {
        var membership = Self.machine()
        let (target, sequence, start) = firstPing(&membership)
        out.removeAll()
        membership.receive(Self.message(from: target, .ack(sequence: sequence)), now: start + .milliseconds(5), into: &out)
        membership.tick(now: start + membership.settings.protocolPeriod, into: &out)
        #expect(membership.member(target)?.status == .alive)
        #expect(!sent.contains { if case .pingRequest = $0.0.body { true } else { false } })
    }

    @Test func aRelayedAckOrANackComesFromTheIntermediary() {
        var membership = Self.machine()
        membership.receive(
            Self.message(from: "b", .pingRequest(sequence: 77, target: "c", targetAddress: "addr-c")), now: .zero, into: &out)
        guard let (ping, destination) = sent.first, case .ping(let relayed) = ping.body else {
            Issue.record("no ping to the target")
            return
        }
        #expect(destination.id == "c")
        out.removeAll()
        membership.receive(Self.message(from: "c", .ack(sequence: relayed)), now: .milliseconds(3), into: &out)
        #expect(sent.map(\.0.body) == [.ack(sequence: 77)])
        #expect(sent.first?.1.id == "b")

        out.removeAll()
        membership.receive(
            Self.message(from: "b", .pingRequest(sequence: 78, target: "d", targetAddress: "addr-d")), now: .seconds(1), into: &out)
        out.removeAll()
        membership.tick(now: .seconds(1) + membership.settings.pingTimeout, into: &out)
        #expect(sent.contains { $0.0.body == .nack(sequence: 78) && $0.1.id == "b" })
    }

    @Test func hearingItselfSuspectedTheMemberRefutesWithAHigherIncarnation() {
        var membership = Self.machine()
        let claim = MemberUpdate(Member(id: "a", address: "addr-a", status: .suspect, incarnation: 0), suspectedBy: "b")
        membership.receive(Self.message(from: "b", .ping(sequence: 1), gossip: [claim]), now: .zero, into: &out)
        #expect(membership.me.incarnation == 1)
        #expect(membership.counters.suspicionsRefuted == 1)
        // The refutation rides on the very answer.
        #expect(sent.first?.0.gossip.contains(MemberUpdate(Member(id: "a", address: "addr-a", status: .alive, incarnation: 1))) == true)
        // An older claim changes nothing.
        membership.receive(Self.message(from: "c", .gossip, gossip: [claim]), now: .zero, into: &out)
        #expect(membership.me.incarnation == 1)
        // Alive at my own incarnation is the truth: nothing to refute.
        let alive = MemberUpdate(Member(id: "a", address: "addr-a", status: .alive, incarnation: 1))
        membership.receive(Self.message(from: "c", .gossip, gossip: [alive]), now: .zero, into: &out)
        #expect(membership.me.incarnation == 1 && membership.counters.suspicionsRefuted == 1)
    }

    /// A failed probe whose intermediaries all answered (a nack each) says the target is
    /// unreachable, not this member: its local health stays. Intermediaries that stay silent
    /// too point at this member, and the score rises.
    @Test(arguments: [true, false])
    func nacksFromEveryIntermediaryKeepTheLocalHealth(nacked: Bool) {
        var membership = Self.machine()
        let (target, sequence, start) = firstPing(&membership)
        out.removeAll()
        membership.tick(now: start + membership.settings.pingTimeout, into: &out)
        let asked = sent.filter { if case .pingRequest = $0.0.body { true } else { false } }.compactMap(\.1.id)
        #expect(asked.count == 2)
        if nacked {
            for id in asked {
                membership.receive(Self.message(from: id, .nack(sequence: sequence)), now: start + .milliseconds(60), into: &out)
            }
        }
        membership.tick(now: start + membership.settings.protocolPeriod, into: &out)
        #expect(membership.member(target)?.status == .suspect)
        #expect(membership.localHealth == (nacked ? 0 : 1))
    }

    @Test(
        arguments: [
            // (current, incoming, result)
            (MemberStatus.alive, 3, MemberStatus.alive, 2, MemberStatus.alive, 3),  // older alive: ignored
            (.alive, 3, .suspect, 3, .suspect, 3),  // suspect beats alive of the same incarnation
            (.alive, 3, .suspect, 2, .alive, 3),  // an old suspicion is stale
            (.suspect, 3, .alive, 3, .suspect, 3),  // only a higher incarnation refutes
            (.suspect, 3, .alive, 4, .alive, 4),
            (.suspect, 3, .dead, 3, .dead, 3),
            (.alive, 3, .dead, 2, .alive, 3),
            (.dead, 3, .alive, 3, .dead, 3),  // old alive gossip cannot resurrect
            (.dead, 3, .alive, 4, .alive, 4),  // a restarted member comes back
            (.dead, 3, .suspect, 9, .dead, 3),
            (.alive, 3, .left, 3, .left, 3),
            (.dead, 3, .left, 3, .left, 3),
            (.left, 3, .dead, 9, .left, 3),
        ] as [(MemberStatus, UInt64, MemberStatus, UInt64, MemberStatus, UInt64)])
    func precedenceFollowsIncarnationThenStatus(
        current: MemberStatus, currentIncarnation: UInt64, incoming: MemberStatus, incomingIncarnation: UInt64, result: MemberStatus,
        resultIncarnation: UInt64
    ) {
        var membership = Self.machine(peers: [])
        var out: [MembershipDirective] = []
        let steps: [MemberUpdate] = [
            MemberUpdate(Member(id: "x", address: "addr-x", status: .alive, incarnation: currentIncarnation)),
            current == .alive
                ? nil
                : MemberUpdate(Member(id: "x", address: "addr-x", status: current, incarnation: currentIncarnation), suspectedBy: "b"),
            MemberUpdate(Member(id: "x", address: "addr-x", status: incoming, incarnation: incomingIncarnation), suspectedBy: "c"),
        ].compactMap { $0 }
        for step in steps { membership.receive(Self.message(from: "b", .gossip, gossip: [step]), now: .zero, into: &out) }
        #expect(membership.member("x")?.status == result)
        #expect(membership.member("x")?.incarnation == resultIncarnation)
    }

    @Test func aSeedAnswersAJoinWithItsTableInBoundedPagesAndGossipsTheJoiner() throws {
        let peers = (0..<600).map { "member-with-a-longer-name-\($0)" }
        var seed = Self.machine("seed", peers: peers)
        var out: [MembershipDirective] = []
        let joiner = MemberUpdate(Member(id: "new", address: "addr-new", incarnation: 0))
        seed.receive(Self.message(from: "new", .join(members: [joiner], wantsReply: true)), now: .zero, into: &out)
        var pages: [[MemberUpdate]] = []
        for case .send(let message, let destination) in out {
            #expect(destination.id == "new")
            guard case .joinReply(let members) = message.body else { continue }
            let bytes = try message.encoded()
            #expect(bytes.count <= MembershipWire.maxMessageBytes)
            pages.append(members)
        }
        #expect(pages.count > 1)
        let listed = Set(pages.joined().map(\.member.id))
        #expect(listed == Set(peers + ["seed", "new"]))
        #expect(seed.member("new")?.status == .alive)
        #expect(seed.pendingGossip == 1, "the joiner is news to spread")

        var newcomer = try #require(Membership(id: "new", address: "addr-new", seed: 2))
        var joinOut: [MembershipDirective] = []
        newcomer.join(seeds: ["addr-seed"], now: .zero, into: &joinOut)
        #expect(!newcomer.isJoined)
        for case .send(let message, _) in out { newcomer.receive(message, now: .milliseconds(2), into: &joinOut) }
        #expect(newcomer.isJoined)
        #expect(newcomer.count(.alive) == 601)
    }

    @Test func joinRepliesPerPeriodAreCapped() {
        var seed = Self.machine("seed")
        var out: [MembershipDirective] = []
        for joiner in 0..<20 {
            let update = MemberUpdate(Member(id: "j\(joiner)", address: "addr-j\(joiner)"))
            seed.receive(Self.message(from: "j\(joiner)", .join(members: [update], wantsReply: true)), now: .zero, into: &out)
        }
        let replies = out.filter { if case .send(let message, _) = $0, case .joinReply = message.body { true } else { false } }
        #expect(replies.count == seed.settings.joinRepliesPerPeriod)
        #expect(seed.counters.joinRepliesDropped == 20 - seed.settings.joinRepliesPerPeriod)
    }

    @Test func gossipAboutMoreMembersThanTheTableHoldsIsDroppedAndCounted() {
        var settings = MembershipSettings()
        settings.maxMembers = 10
        var membership = Self.machine(peers: [], settings: settings)
        var out: [MembershipDirective] = []
        for batch in 0..<5 {
            let gossip = (0..<8).map { MemberUpdate(Member(id: "g\(batch)-\($0)", address: "x")) }
            membership.receive(Self.message(from: "b", .gossip, gossip: gossip), now: .zero, into: &out)
        }
        // b itself (known from its message) takes one of the 10 places.
        #expect(membership.members.count == 10)
        #expect(membership.counters.membersDropped == 31)
    }

    @Test func relaysAreCapped() {
        var settings = MembershipSettings()
        settings.maxPendingRelays = 4
        var membership = Self.machine(settings: settings)
        var out: [MembershipDirective] = []
        for sequence in 0..<10 as Range<UInt32> {
            membership.receive(
                Self.message(from: "b", .pingRequest(sequence: sequence, target: "c", targetAddress: "addr-c")), now: .zero, into: &out)
        }
        #expect(membership.counters.relaysDropped == 6)
    }

    @Test func gossipPerMessageIsBoundedAndEachChangeIsSentALimitedNumberOfTimes() {
        var membership = Self.machine(peers: [])
        var out: [MembershipDirective] = []
        let gossip = (0..<32).map { MemberUpdate(Member(id: "g\($0)", address: String(repeating: "x", count: 100))) }
        membership.receive(Self.message(from: "b", .gossip, gossip: gossip), now: .zero, into: &out)
        var sends: [Int: Int] = [:]
        for round in 0..<200 as Range<UInt32> {
            out.removeAll()
            membership.receive(Self.message(from: "b", .ping(sequence: round)), now: .zero, into: &out)
            for case .send(let message, _) in out {
                let bytes = message.gossip.reduce(0) { $0 + MembershipWire.encodedSize(of: $1) }
                #expect(message.gossip.count <= membership.settings.maxGossipPerMessage)
                #expect(bytes <= membership.settings.maxGossipBytes)
                for update in message.gossip { sends[Int(update.member.id.dropFirst()) ?? -1, default: 0] += 1 }  // b counts as -1
            }
        }
        // 32 members, b (known from its message) and me: λ·⌈log10(34 + 1)⌉ = 4·2 = 8 sends each, then silence.
        #expect(sends.count == 33 && sends.values.allSatisfy { $0 == 8 }, "\(sends)")
        #expect(membership.pendingGossip == 0)
    }

    /// Both piggyback bounds hold on their own: the count (here 3, where the bytes would take
    /// many more) as well as the bytes.
    @Test func theGossipCountBoundHoldsWhereTheBytesWouldAllowMore() {
        var settings = MembershipSettings()
        settings.maxGossipPerMessage = 3
        var membership = Self.machine(peers: [], settings: settings)
        let gossip = (0..<10).map { MemberUpdate(Member(id: "g\($0)", address: "x")) }
        membership.receive(Self.message(from: "b", .gossip, gossip: gossip), now: .zero, into: &out)
        out.removeAll()
        membership.receive(Self.message(from: "b", .ping(sequence: 1)), now: .zero, into: &out)
        #expect(sent.map(\.0.gossip.count) == [3])
    }

    /// An update carried ahead of the queued gossip (here the tombstone told to a member held
    /// dead that speaks) is charged to the same byte budget: ten queued rumours of 101 bytes
    /// would fill it alone.
    @Test func anUpdateCarriedFirstCountsAgainstTheGossipBytes() throws {
        var membership = Self.machine()
        let dead = MemberUpdate(Member(id: "b", address: "addr-b", status: .dead, incarnation: 2))
        let fillers = (0..<10).map { MemberUpdate(Member(id: "g\($0)", address: String(repeating: "x", count: 95))) }
        #expect(fillers.allSatisfy { MembershipWire.encodedSize(of: $0) == 101 })
        membership.receive(Self.message(from: "c", .gossip, gossip: [dead] + fillers), now: .zero, into: &out)
        out.removeAll()
        membership.receive(
            MembershipMessage(sender: "b", senderAddress: "addr-b", senderIncarnation: 2, body: .ping(sequence: 9)), now: .zero, into: &out)
        let notice = try #require(sent.first { $0.0.body == .gossip })
        #expect(notice.0.gossip.first == dead)
        #expect(notice.0.gossip.reduce(0) { $0 + MembershipWire.encodedSize(of: $1) } <= membership.settings.maxGossipBytes)
    }

    /// The rumour about the recipient rides first, ahead of rumours sent as few times, so it can
    /// refute at once even when the message has room for little else.
    @Test func theRumourAboutTheRecipientRidesFirst() {
        var settings = MembershipSettings()
        settings.maxGossipPerMessage = 2
        var membership = Self.machine(settings: settings)
        let suspicion = MemberUpdate(Member(id: "b", address: "addr-b", status: .suspect, incarnation: 0), suspectedBy: "c")
        let others = (0..<10).map { MemberUpdate(Member(id: "g\($0)", address: "addr-g\($0)")) }
        membership.receive(Self.message(from: "c", .gossip, gossip: others + [suspicion]), now: .zero, into: &out)
        out.removeAll()
        membership.receive(Self.message(from: "b", .ping(sequence: 3)), now: .zero, into: &out)
        #expect(sent.first?.0.body == .ack(sequence: 3))
        #expect(sent.first?.0.gossip.first == suspicion)
    }

    /// λ·⌈log10(N + 1)⌉ at a power of ten: with 9 members (N + 1 = 10), each change is
    /// piggybacked 4 times, then dropped.
    @Test func theRetransmitLimitAtAPowerOfTen() {
        var membership = Self.machine(peers: (0..<8).map { "p\($0)" })
        #expect(membership.activeCount == 9)
        let suspicion = MemberUpdate(Member(id: "p1", address: "addr-p1", status: .suspect, incarnation: 0), suspectedBy: "p2")
        membership.receive(Self.message(from: "p2", .gossip, gossip: [suspicion]), now: .zero, into: &out)
        var carried = 0
        for round in 0..<20 as Range<UInt32> {
            out.removeAll()
            membership.receive(Self.message(from: "p0", .ping(sequence: round)), now: .zero, into: &out)
            carried += sent.filter { $0.0.gossip.contains(suspicion) }.count
        }
        #expect(carried == 4 && membership.pendingGossip == 0)
    }

    @Test func aGracefulLeaveTellsTheFanoutAndStopsProbing() throws {
        var membership = Self.machine(peers: (0..<20).map { "p\($0)" })
        var out: [MembershipDirective] = []
        membership.tick(now: .zero, into: &out)
        out.removeAll()
        membership.leave(now: .milliseconds(10), into: &out)
        let told = out.compactMap {
            if case .send(let message, let destination) = $0, message.body == .gossip { (message, destination) } else { nil }
        }
        #expect(told.count == membership.settings.leaveFanout)
        #expect(told.allSatisfy { $0.0.gossip.contains(MemberUpdate(Member(id: "a", address: "addr-a", status: .left, incarnation: 1))) })
        #expect(Set(told.compactMap(\.1.id)).count == told.count)
        out.removeAll()
        for step in 1...30 { membership.tick(now: .milliseconds(10 * step), into: &out) }
        #expect(!out.contains { if case .send(let message, _) = $0, case .ping = message.body { true } else { false } })
        // Still answers, repeating that it left.
        membership.receive(
            Self.message(from: "p1", .ping(sequence: 5), gossip: [MemberUpdate(Member(id: "a", address: "addr-a", incarnation: 1))]),
            now: .seconds(1), into: &out)
        let answer = try #require(out.last.flatMap { if case .send(let message, _) = $0 { message } else { nil } }, "an answer to the ping")
        #expect(answer.body == .ack(sequence: 5))
        #expect(answer.gossip.first?.member.status == .left)
    }

    @Test func aTombstoneIsForgottenAfterItsRetention() {
        var membership = Self.machine()
        var out: [MembershipDirective] = []
        membership.tick(now: .zero, into: &out)
        let dead = MemberUpdate(Member(id: "b", address: "addr-b", status: .dead, incarnation: 0))
        membership.receive(Self.message(from: "c", .gossip, gossip: [dead]), now: .seconds(1), into: &out)
        #expect(membership.member("b")?.status == .dead)
        membership.tick(now: .seconds(1) + membership.settings.tombstoneRetention - .milliseconds(1), into: &out)
        #expect(membership.member("b")?.status == .dead)
        membership.tick(now: .seconds(1) + membership.settings.tombstoneRetention, into: &out)
        #expect(membership.member("b") == nil)
        #expect(membership.count(.dead) == 0)
    }

    /// A leave already known changes nothing when it is heard again (copies of it keep coming):
    /// its tombstone keeps the time of the first, and is forgotten on time.
    @Test func aLeaveHeardAgainKeepsItsFirstTombstone() {
        var membership = Self.machine()
        membership.tick(now: .zero, into: &out)
        let left = MemberUpdate(Member(id: "b", address: "addr-b", status: .left, incarnation: 1))
        let retention = membership.settings.tombstoneRetention
        membership.receive(Self.message(from: "c", .gossip, gossip: [left]), now: .seconds(1), into: &out)
        #expect(membership.member("b")?.status == .left)
        membership.receive(Self.message(from: "d", .gossip, gossip: [left]), now: retention, into: &out)
        membership.tick(now: .seconds(1) + retention, into: &out)
        #expect(membership.member("b") == nil)
    }

    @Test func garbageIsCountedAndIgnored() {
        var membership = Self.machine()
        var out: [MembershipDirective] = []
        membership.receive([1, 2, 3], now: .zero, into: &out)
        membership.receive([], now: .zero, into: &out)
        membership.receive(Self.message(from: "a", .ping(sequence: 1)), now: .zero, into: &out)
        #expect(out.isEmpty)
        #expect(membership.counters.totalDecodeFailures == 2)
        #expect(membership.counters.messagesIgnored == 1, "a message claiming to be from me")
    }

    @Test func aMessageClaimingAnotherSenderThanTheAuthenticatedOneIsDropped() throws {
        var membership = Self.machine()
        var out: [MembershipDirective] = []
        let forged = try Self.message(
            from: "b", .ping(sequence: 1), gossip: [MemberUpdate(Member(id: "c", address: "addr-c", status: .dead))]
        ).encoded()
        membership.receive(forged, from: "d", now: .zero, into: &out)
        #expect(out.isEmpty)
        #expect(membership.counters.senderMismatches == 1)
        #expect(membership.member("c")?.status == .alive)
        membership.receive(forged, from: "b", now: .zero, into: &out)
        #expect(membership.member("c")?.status == .dead)
    }

    @Test func aMessageFromAStrangerMakesItKnownAlive() {
        var membership = Self.machine()
        var out: [MembershipDirective] = []
        membership.receive(
            MembershipMessage(sender: "e", senderAddress: "addr-e", senderIncarnation: 4, body: .ping(sequence: 1)), now: .zero, into: &out)
        #expect(membership.member("e") == Member(id: "e", address: "addr-e", status: .alive, incarnation: 4))
        #expect(out.contains(.statusChanged(Member(id: "e", address: "addr-e", status: .alive, incarnation: 4), previous: nil)))
    }

    @Test func aMemberHeldDeadIsToldSoWhenItSpeaksAndComesBackByRefuting() throws {
        var membership = Self.machine()
        let dead = MemberUpdate(Member(id: "b", address: "addr-b", status: .dead, incarnation: 2))
        membership.receive(Self.message(from: "c", .gossip, gossip: [dead]), now: .zero, into: &out)
        out.removeAll()
        membership.receive(
            MembershipMessage(sender: "b", senderAddress: "addr-b", senderIncarnation: 2, body: .ping(sequence: 9)), now: .zero, into: &out)
        let notice = try #require(sent.first { $0.0.body == .gossip })
        #expect(notice.1.id == "b")
        #expect(notice.0.gossip.first == dead)
        // b refutes: its next message carries the higher incarnation.
        var b = try #require(Membership(id: "b", address: "addr-b", incarnation: 2, seed: 3))
        var bOut: [MembershipDirective] = []
        b.receive(notice.0, now: .zero, into: &bOut)
        #expect(b.me.incarnation == 3)
        membership.receive(
            MembershipMessage(sender: "b", senderAddress: "addr-b", senderIncarnation: 3, body: .ack(sequence: 0)), now: .zero, into: &out)
        #expect(membership.member("b")?.status == .alive)
    }

    /// The machine under a stream of random, well-formed but hostile messages (random ids,
    /// incarnations up to the maximum, claims about itself, ping-requests, joins, acks for
    /// nothing) interleaved with ticks: no trap, and every bound and invariant holds throughout.
    @Test func randomHostileTrafficKeepsEveryBound() async {
        var settings = MembershipSettings()
        settings.maxMembers = 64
        var membership = Self.machine(peers: (0..<10).map { "p\($0)" }, settings: settings)
        var random = MembershipRandom(seed: 23)
        var out: [MembershipDirective] = []
        var now = Duration.zero
        func id() -> String {
            random.chance(0.5) ? "p\(random.index(below: 12))" : (random.chance(0.1) ? "a" : "r\(random.index(below: 500))")
        }
        func incarnation() -> UInt64 { random.chance(0.05) ? .max : UInt64(random.index(below: 5)) }
        func update() -> MemberUpdate {
            let status = MemberStatus.allCases[random.index(below: 4)]
            return MemberUpdate(Member(id: id(), address: "addr", status: status, incarnation: incarnation()), suspectedBy: id())
        }
        for step in 0..<20_000 {
            if step % 500 == 0 { await Task.yield() }  // CPU-bound: leave the shared pool to others now and then
            out.removeAll(keepingCapacity: true)
            if step % 7 == 0 {
                now += .milliseconds(random.index(below: 40))
                membership.tick(now: now, into: &out)
                if let deadline = membership.nextDeadline { #expect(deadline > now, "a deadline is still due after a tick") }
                continue
            }
            let sequence = UInt32(truncatingIfNeeded: random.next())
            let bodies: [MembershipMessage.Body] = [
                .ping(sequence: sequence), .ack(sequence: sequence), .nack(sequence: sequence), .gossip,
                .pingRequest(sequence: sequence, target: id(), targetAddress: "addr"),
                .join(members: (0..<random.index(below: 20)).map { _ in update() }, wantsReply: random.chance(0.5)),
                .joinReply(members: (0..<random.index(below: 20)).map { _ in update() }),
            ]
            let message = MembershipMessage(
                sender: id(), senderAddress: "addr", senderIncarnation: incarnation(),
                body: bodies[random.index(below: bodies.count)], gossip: (0..<random.index(below: 8)).map { _ in update() }
            )
            membership.receive(message, now: now, into: &out)
            if step == 15_000 { membership.leave(now: now, into: &out) }
            for case .send(let sent, _) in out {
                #expect((try? sent.encoded()) != nil, "every message the machine builds is encodable")
            }
        }
        #expect(membership.members.count <= 64)
        #expect(MemberStatus.allCases.reduce(0) { $0 + membership.count($1) } == membership.members.count)
        #expect(membership.pendingGossip <= membership.members.count + 1)
        #expect(membership.counters.membersDropped > 0)
    }

    @Test func invalidIdentitiesAreRefused() {
        #expect(Membership(id: "", address: "x", seed: 1) == nil)
        #expect(Membership(id: String(repeating: "i", count: 65), address: "x", seed: 1) == nil)
        #expect(Membership(id: "i", address: String(repeating: "a", count: 129), seed: 1) == nil)
    }
}
