import RexControl
import RexMembership
import SwiftRex
import SwiftRexTesting
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The node hosting the SWIM membership, without sockets: `NodeFeature` in a store on a
/// `TestClock` over an in-memory transport, talking to one simulated peer (a real `Membership`
/// machine the test runs by hand). Time moves only in the test's 10 ms steps; each step carries
/// the messages of both sides one hop.
@Suite struct NodeMembershipTests {
    static let n1 = MemberAddress(membership: "tcp://127.0.0.1:7301", pub: "tcp://127.0.0.1:7101")
    static let n2 = MemberAddress(membership: "tcp://127.0.0.1:7302", pub: "tcp://127.0.0.1:7102")

    final class Harness {
        let clock = TestClock()
        let network = InMemoryTransport()
        let plan: MembershipPlan
        let store: Store<NodeAction, NodeState, ClusterEnvironment>
        /// The simulated peer n2 and whether it answers.
        var peer: Membership
        var peerAnswers = true
        /// n2's status in the node's state after each step, without repeats.
        var history: [Peer.Status] = []

        /// n1 knowing n2 from configuration, or (`joining`) knowing nobody and joining through n2.
        init(joining: Bool = false) {
            let settings = NodeSettings(feedIntervalMs: 100, followSettleMs: 50)
            plan =
                joining
                ? MembershipPlan(address: NodeMembershipTests.n1, incarnation: 0, seed: 1, seeds: [NodeMembershipTests.n2.membership])
                : MembershipPlan(address: NodeMembershipTests.n1, incarnation: 0, seed: 1, members: ["n2": NodeMembershipTests.n2])
            let environment = ClusterEnvironment(
                transport: network.transport, settings: settings, clock: clock,
                log: NodeLogger(nodeID: "n1", level: .error, sink: { _ in }),
                membership: plan
            )
            var initial = NodeState(id: "n1", settings: settings)
            if !joining { initial.peers["n2"] = Peer(endpoint: NodeMembershipTests.n2.pub) }
            store = Store(
                initial: initial, behavior: NodeFeature.behavior, environment: environment, clock: clock,
                executor: .queue(label: "NodeMembershipTests"))
            peer = Membership(id: "n2", address: NodeMembershipTests.n2.text, seed: 2)!
            var ignored: [MembershipDirective] = []
            if !joining { peer.add("n1", address: NodeMembershipTests.n1.text, now: .zero, into: &ignored) }
        }

        var state: NodeState { store.state }

        /// Waits until the node has handled what is due: its timer re-armed, its store idle.
        func settle() async {
            _ = await clock.waitForSleepers(1)
            await store.waitUntilIdle()
        }

        /// Runs `milliseconds` of virtual time in 10 ms steps.
        func run(_ milliseconds: Int) async {
            await settle()
            for _ in 0..<(milliseconds / 10) {
                clock.advance(by: .milliseconds(10))
                await settle()
                await exchange()
                if let status = state.peers["n2"]?.status, history.last != status { history.append(status) }
            }
        }

        /// One hop each way: what the node sent reaches n2 (if it answers), n2 runs its timers,
        /// and what n2 sends reaches the node.
        private func exchange() async {
            let now = clock.now.offset
            var directives: [MembershipDirective] = []
            for sent in network.takeMembershipSent() where sent.id == "n2" || sent.endpoint == NodeMembershipTests.n2.membership {
                if peerAnswers { peer.receive(sent.bytes, now: now, into: &directives) }
            }
            if peerAnswers { peer.tick(now: now, into: &directives) }
            for case .send(let message, let destination) in directives where destination.id == "n1" {
                network.deliverMembership(try! message.encoded())
            }
            await store.waitUntilIdle()
        }

        func channelIDs() async -> [String] {
            await store.keep().channels.map { "\($0.id)" }.sorted()
        }
    }

    @Test func configuredMembersAreAliveAtOnceAndProbedWithoutHeartbeats() async {
        let node = Harness()
        await node.settle()
        #expect(node.state.peers["n2"]?.status == .alive)
        #expect(node.state.peers["n2"]?.incarnation == 0)
        #expect(await node.channelIDs() == ["membership", "peer[n2]", "pub"], "no heartbeat channel and no $hb. route")
        #expect(!node.network.events.contains(.addRoute(.prefix("$hb."), snapshot: false)))
        node.peerAnswers = false
        await node.run(200)
        #expect(node.network.published.isEmpty, "no heartbeat is published")
        await node.store.release()
    }

    /// A node that knows nobody joins through a seed's membership endpoint: it learns the
    /// member behind it from the seed's table, and connects to its publisher.
    @Test func aJoiningNodeLearnsTheClusterFromASeed() async {
        let node = Harness(joining: true)
        await node.settle()
        #expect(node.state.peers.isEmpty)
        await node.run(300)
        #expect(node.state.peers["n2"]?.status == .alive)
        #expect(node.state.peers["n2"]?.endpoint == NodeMembershipTests.n2.pub, "the publisher from the member's address")
        #expect(node.network.events.contains(.connect(NodeMembershipTests.n2.pub)))
        #expect(node.peer.member("n1")?.status == .alive, "and the seed knows the joiner")
        await node.store.release()
    }

    /// A node that stops announces it: its peer hears `left` (no suspicion, no timeout).
    @Test func aStoppingNodeAnnouncesItsLeave() async {
        let node = Harness()
        await node.run(500)
        #expect(node.peer.member("n1")?.status == .alive)
        await node.store.release()
        var directives: [MembershipDirective] = []
        let sent = node.network.takeMembershipSent().filter { $0.id == "n2" }
        #expect(!sent.isEmpty, "the leave went out as the membership channel was cancelled")
        for message in sent { node.peer.receive(message.bytes, now: node.clock.now.offset, into: &directives) }
        #expect(node.peer.member("n1")?.status == .left)
    }

    @Test func aPeerThatAnswersStaysAliveAndOneThatStopsIsDeclaredGoneAndDisconnected() async {
        let node = Harness()
        await node.store.waitUntilIdle()
        node.store.dispatch(.follow(name: "f", topic: "t", from: "n2"))
        await node.run(3000)
        #expect(node.history == [.alive], "an answering peer is never suspected")
        #expect(node.state.follows["f"]?.endpoint == NodeMembershipTests.n2.pub)
        #expect(node.network.events.contains(.openDedicated(NodeMembershipTests.n2.pub, TopicPattern("t"))))
        let probes = node.peer.counters.messagesReceived
        #expect(probes >= 20, "about one probe per 100 ms period reached n2 (got \(probes) in 3 s)")

        node.peerAnswers = false
        await node.run(5000)
        #expect(node.history == [.alive, .suspect, .gone], "suspect first, then declared dead")
        #expect(node.state.peers["n2"]?.status == .gone)
        #expect(await node.channelIDs() == ["membership", "pub"], "no data-plane connection to a dead member, and the follow waits")
        #expect(node.network.events.contains(.disconnect(NodeMembershipTests.n2.pub)))
        #expect(node.network.events.contains(.closeDedicated(NodeMembershipTests.n2.pub, TopicPattern("t"))))
        #expect(node.state.follows["f"]?.endpoint == nil)
        #expect(node.network.membershipForgotten == ["n2"])
        await node.store.release()
    }

    @Test func aSuspectThatRefutesKeepsItsConnectionAndItsFollow() async {
        let node = Harness()
        await node.store.waitUntilIdle()
        node.store.dispatch(.follow(name: "f", topic: "t", from: "n2"))
        await node.run(1000)
        node.peerAnswers = false
        var waited = 0
        while node.state.peers["n2"]?.status != .suspect, waited < 2000 {
            await node.run(10)
            waited += 10
        }
        #expect(node.state.peers["n2"]?.status == .suspect, "silent for \(waited) ms")
        node.peerAnswers = true
        await node.run(2000)
        #expect(node.history == [.alive, .suspect, .alive])
        #expect((node.state.peers["n2"]?.incarnation ?? 0) > 0, "n2 refuted at a higher incarnation")
        #expect(!node.network.events.contains(.disconnect(NodeMembershipTests.n2.pub)), "a suspect keeps its connection")
        #expect(!node.network.events.contains { if case .closeDedicated = $0 { true } else { false } }, "and its follow")
        #expect(node.state.follows["f"]?.endpoint == NodeMembershipTests.n2.pub)
        await node.store.release()
    }

    @Test func forgedAndMalformedMessagesAreCountedAndDropped() async {
        let node = Harness()
        await node.settle()
        let before = node.state
        node.network.deliverMembership([0x53, 1, 99, 0xff])
        node.network.deliverMembership(Array(repeating: 0xAA, count: 20_000))
        // A ping that claims to come from n3 on a connection the transport authenticated as n2.
        let forged = MembershipMessage(sender: "n3", senderAddress: "tcp://x:1 tcp://x:2", senderIncarnation: 0, body: .ping(sequence: 1))
        node.network.deliverMembership(try! forged.encoded(), from: "n2")
        // A member whose address is not "MEMBERSHIP PUB" is known to the machine but gets no peer.
        let odd = MembershipMessage(sender: "n4", senderAddress: "no-space", senderIncarnation: 0, body: .gossip)
        node.network.deliverMembership(try! odd.encoded())
        await node.store.waitUntilIdle()
        let counters = node.plan.stats.counters
        #expect(counters.totalDecodeFailures == 2)
        #expect(counters.senderMismatches == 1)
        #expect(node.state.peers.keys.sorted() == ["n2"], "no peer from a forged or unusable message")
        #expect(node.state.peers == before.peers)
        await node.store.release()
    }
}
