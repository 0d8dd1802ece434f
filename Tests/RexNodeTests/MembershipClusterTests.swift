import Foundation
import NodeTestSupport
import RexControl
import RexMembership
import SharedTestSupport
import Synchronization
import Testing
import ZMQ

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// Nodes running the SWIM membership over real sockets (ipc endpoints known before any node
/// starts, as a cluster file would list them): what only the runtime shows — the ROUTER path,
/// connects by member id, CURVE on it, and the data plane following membership.
@Suite(.serialized) struct MembershipClusterTests {
    struct Endpoints {
        let tag = UInt32.random(in: 0...UInt32.max)
        let ids: [String]

        func pub(_ id: String) -> String { IPCTestEndpoint.make("rexswim-\(getpid())-\(tag)-\(id).pub") }
        func membership(_ id: String) -> String { IPCTestEndpoint.make("rexswim-\(getpid())-\(tag)-\(id).mem") }

        func configuration(_ id: String) -> NodeConfiguration {
            var configuration = NodeConfiguration(
                id: id, pubEndpoint: pub(id), controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: membership(id),
                settings: NodeSettings(feedIntervalMs: 20, followSettleMs: 10), logLevel: .error)
            for other in ids where other != id { configuration.addPeer(other, pub: pub(other), membership: membership(other)) }
            return configuration
        }
    }

    /// The node's I/O counters, read off the cooperative pool (reading them waits for the node's
    /// reactor). The membership's sockets signal nothing a test can wait on, so the tests poll
    /// these with `eventually`.
    static func counters(_ node: Node) async -> NodeIO.Counters {
        (try? await offPool { node.ioCounters() }) ?? NodeIO.Counters()
    }

    static func allAlive(_ state: NodeState, _ ids: [String]) -> Bool {
        ids.filter { $0 != state.id }.allSatisfy { state.peers[$0]?.status == .alive && state.peers[$0]?.incarnation != nil }
    }

    @Test func membersProbeEachOtherFollowDataAndSeeAStoppedMemberGone() async throws {
        let cluster = Endpoints(ids: ["n1", "n2", "n3"])
        let nodes = try cluster.ids.map { try Node.start(cluster.configuration($0)) }
        let (n1, n2, n3) = (nodes[0], nodes[1], nodes[2])
        n3.dispatch(.set(topic: "t", value: "v"))
        n1.dispatch(.follow(name: "f", topic: "t", from: "n3"))
        #expect(await waitFor(n1, timeout: .seconds(10)) { $0.follows["f"]?.lastValue == "v" }, "a from-follow resolved through membership")
        // Probes flow both ways for a while: everyone stays alive.
        let probed = await eventually(.seconds(30)) {
            let membership = await Self.counters(n1).membership
            return (membership?.sent ?? 0) >= 20 && (membership?.received ?? 0) >= 20
        }
        #expect(probed, "n1 probed and was probed over its membership socket: \(String(describing: n1.ioCounters().membership))")
        for node in nodes { #expect(Self.allAlive(node.state, cluster.ids), "\(node.id): \(node.state.peers)") }
        #expect(n1.messageCounts().published == 0, "no heartbeats: n1 published nothing")

        await n3.stop()
        for node in [n1, n2] {
            #expect(await waitFor(node, timeout: .seconds(10)) { $0.peers["n3"]?.status == .gone }, "\(node.id) sees n3 gone")
            #expect(node.state.peers["n2"]?.status ?? node.state.peers["n1"]?.status == .alive)
        }
        #expect(n1.state.follows["f"]?.endpoint == nil, "the follow waits for n3 to come back")
        await n2.stop()
        await n1.stop()
    }

    /// Regression: a member declared dead is disconnected, and the machine may send to it again
    /// at once (to tell it so); libzmq finishes a disconnect later, and a connect reusing the
    /// routing id of a pipe not yet gone aborted the process (router.cpp `!has_out_pipe`,
    /// seen in the e2e kill -9 scenario). Each connection now gets a routing id of its own.
    @Test func sendingToAMemberRightAfterForgettingItIsSafe() async throws {
        let endpoints = Endpoints(ids: ["a", "b"])
        let context = try ZMQContext()
        let reactor = Reactor(name: "membership-socket-test")
        let log = NodeLogger(nodeID: "t", level: .error, sink: { _ in })
        let received = Mutex(0)
        let delivered = Arrivals()
        let sockets = try reactor.sync { () throws -> ReactorBound<[MembershipSocket]> in
            let a = try MembershipSocket(context: context, reactor: reactor, endpoint: endpoints.membership("a"), log: log, security: nil)
            let b = try MembershipSocket(context: context, reactor: reactor, endpoint: endpoints.membership("b"), log: log, security: nil)
            b.open { _, _ in
                received.withLock { $0 += 1 }
                delivered.signal()
            }
            for _ in 0..<200 {
                a.send(to: "b", endpoint: b.endpoint, [1, 2, 3])
                a.forget("b")
            }
            a.send(to: "b", endpoint: b.endpoint, [1, 2, 3])
            return ReactorBound([a, b], on: reactor)
        }
        #expect(await delivered.wait(), "the last connection delivers")
        let counters = try reactor.sync { sockets.value[0].counters }
        #expect(counters.connections == 1 && counters.sent + counters.dropped == 201)
        try reactor.sync { for socket in sockets.value { socket.close() } }
        reactor.stop()
        try? context.terminate(timeout: .seconds(1))
    }

    @Test func aSecuredClusterAuthenticatesMembershipMessagesByKey() async throws {
        var secure = try SecureCluster(nodes: ["n1", "n2", "n3"])
        let cluster = Endpoints(ids: ["n1", "n2", "n3"])
        for id in cluster.ids { secure.pubs[id] = cluster.pub(id) }
        let nodes = try cluster.ids.map { id in
            var configuration = cluster.configuration(id)
            configuration.security = secure.security(for: id)
            return try Node.start(configuration)
        }
        for node in nodes {
            #expect(await waitFor(node, timeout: .seconds(10)) { Self.allAlive($0, cluster.ids) }, "\(node.id): \(node.state.peers)")
        }
        let probed = await eventually(.seconds(30)) { (await Self.counters(nodes[0]).membership?.received ?? 0) >= 20 }
        #expect(probed)
        for node in nodes {
            let counters = try #require(node.ioCounters().membership)
            #expect(counters.refused == 0 && counters.unkeyed == 0, "\(node.id): \(counters)")
            #expect(node.ioCounters().membershipMachine?.senderMismatches == 0)
        }
        for node in nodes.reversed() { await node.stop() }
    }

    /// Raw bytes at a node's membership ROUTER from a plain DEALER (what anyone on the network
    /// can send a plain node): each kind of garbage is counted under its reason in the metrics'
    /// membership section, none is taken as a member, and the node keeps probing its peers.
    @Test func forgedAndOversizedMembershipBytesAreCountedByReasonInTheMetrics() async throws {
        let cluster = Endpoints(ids: ["n1", "n2"])
        let nodes = try cluster.ids.map { try Node.start(cluster.configuration($0)) }
        let n1 = nodes[0]
        #expect(await waitFor(n1, timeout: .seconds(10)) { Self.allAlive($0, cluster.ids) })
        let context = try ZMQContext()
        let rogue = try context.socket(.dealer)
        try rogue.setOption(.linger, Duration.zero)
        try rogue.connect(cluster.membership("n1"))
        let ping = try MembershipMessage(
            sender: "rogue", senderAddress: "tcp://127.0.0.1:1 tcp://127.0.0.1:2", senderIncarnation: 0, body: .ping(sequence: 1)
        ).encoded()
        _ = try rogue.send([0x00, 0x01, 0x02], flags: [])  // not the magic
        _ = try rogue.send([MembershipWire.magic, 9, 1], flags: [])  // a version not spoken
        _ = try rogue.send(Array(ping.dropLast(3)), flags: [])  // cut short
        _ = try rogue.send(ping + [0xEE], flags: [])  // a byte too many
        _ = try rogue.send(Array(repeating: MembershipWire.magic, count: 20_000), flags: [])  // over 16 KiB
        _ = try rogue.send([1], flags: .more)  // three frames at the ROUTER
        _ = try rogue.send([2], flags: [])
        let expected: [String: Int] = [
            "bad_magic": 1, "unsupported_version": 1, "truncated": 1, "trailing_bytes": 1, "oversized": 1, "bad_frames": 1,
        ]
        let counted = await eventually(.seconds(30)) {
            let counters = await Self.counters(n1)
            guard let metrics = MetricsDocument.Membership(socket: counters.membership, machine: counters.membershipMachine, peers: [])
            else { return false }
            return expected.allSatisfy { metrics.dropped[$0.key] == $0.value }
        }
        let counters = try await offPool { n1.ioCounters() }
        let metrics = try #require(
            MetricsDocument.Membership(socket: counters.membership, machine: counters.membershipMachine, peers: n1.state.peers.values))
        #expect(counted, "\(metrics.dropped)")
        #expect(metrics.members == MetricsDocument.MemberCounts(alive: 1), "no member from the garbage: \(metrics.members)")
        #expect(n1.state.peers["rogue"] == nil)
        // A frame over twice the limit: libzmq drops that connection before reading it; the node lives on and keeps probing.
        _ = try rogue.send(Array(repeating: 0, count: 40_000), flags: [])
        let probing = counters.membership?.received ?? 0
        #expect(
            await eventually(.seconds(30)) { (await Self.counters(n1).membership?.received ?? 0) >= probing + 5 },
            "n1 still hears n2's probes")
        #expect(await waitFor(n1) { Self.allAlive($0, cluster.ids) })
        rogue.close()
        try? context.terminate(timeout: .seconds(1))
        for node in nodes.reversed() { await node.stop() }
    }

    /// A plain cluster's leftover (issue 31): anyone may send a node a ping "from" a member at
    /// incarnation UInt64.max, which no member could ever refute. The node refuses it (counted as
    /// `future_incarnation`), the member keeps its own incarnation in the node's view and stays
    /// alive, and its own word after the forgery is still heard.
    @Test func aForgedMaximumIncarnationOnAPlainClusterIsRefused() async throws {
        let cluster = Endpoints(ids: ["n1", "n2"])
        let nodes = try cluster.ids.map { try Node.start(cluster.configuration($0)) }
        let (n1, n2) = (nodes[0], nodes[1])
        #expect(await waitFor(n1, timeout: .seconds(10)) { Self.allAlive($0, cluster.ids) })
        let genuine = try #require(n1.state.peers["n2"]?.incarnation)
        let context = try ZMQContext()
        let rogue = try context.socket(.dealer)
        try rogue.setOption(.linger, Duration.zero)
        try rogue.connect(cluster.membership("n1"))
        let address = cluster.membership("n2") + " " + cluster.pub("n2")
        let forged = MembershipMessage(
            sender: "n2", senderAddress: address, senderIncarnation: .max, body: .ping(sequence: 7),
            gossip: [MemberUpdate(Member(id: "n2", address: address, status: .left, incarnation: .max))])
        _ = try rogue.send(try forged.encoded(), flags: [])
        let refused = await eventually(.seconds(10)) { (await Self.counters(n1).membershipMachine?.futureIncarnations ?? 0) >= 1 }
        #expect(refused, "\(String(describing: n1.ioCounters().membershipMachine))")
        // n2's probes go on being answered, at its own incarnation: it never leaves n1's view.
        let heard = await Self.counters(n1).membership?.received ?? 0
        #expect(await eventually(.seconds(10)) { (await Self.counters(n1).membership?.received ?? 0) >= heard + 5 })
        #expect(n1.state.peers["n2"]?.status == .alive)
        #expect(n1.state.peers["n2"]?.incarnation == genuine)
        let metrics = try #require(
            MetricsDocument.Membership(
                socket: await Self.counters(n1).membership, machine: await Self.counters(n1).membershipMachine, peers: []))
        #expect(metrics.dropped["future_incarnation"] == 1)
        _ = n2
        rogue.close()
        try? context.terminate(timeout: .seconds(1))
        for node in nodes.reversed() { await node.stop() }
    }
}
