import Foundation
import NodeTestSupport
import RexControl
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// `GET /readyz` (what a Kubernetes readiness probe and a rolling update wait for) and
/// `GET /healthz` (liveness) on the metrics endpoint.
@Suite(.serialized) struct ReadinessTests {
    typealias Facts = NodeReadiness.Facts

    @Test func theDecision() {
        let alone = Facts(expectsMembers: false, aliveMembers: 0, membershipMessagesReceived: 0, journalOpen: nil)
        #expect(NodeReadiness.decide(alone).ready, "no peer and no seed: a cluster of one is ready at once")
        let joined = Facts(expectsMembers: true, aliveMembers: 2, membershipMessagesReceived: 40, journalOpen: true)
        #expect(NodeReadiness.decide(joined) == NodeReadiness(ready: true, reason: "ready: 2 other member(s) alive"))

        var facts = joined
        facts.membershipMessagesReceived = 0
        #expect(
            NodeReadiness.decide(facts) == NodeReadiness(ready: false, reason: "joining: no other member has answered yet"),
            "configured members are alive from the start: that alone is not joined")
        facts = joined
        facts.aliveMembers = 0
        #expect(NodeReadiness.decide(facts) == NodeReadiness(ready: false, reason: "alone: no other member is alive"))
        for expects in [false, true] {
            facts = joined
            facts.expectsMembers = expects
            facts.journalOpen = false
            #expect(!NodeReadiness.decide(facts).ready, "a failed journal is never ready")
            #expect(NodeReadiness.decide(facts).reason.hasPrefix("journal failed"))
        }
        facts = joined
        facts.journalOpen = nil
        #expect(NodeReadiness.decide(facts).ready, "no data directory: no journal to wait for")
    }

    /// A node that joins through a seed not started yet answers /readyz 503 (and /healthz 200)
    /// until the seed answered, then 200; once the seed left, 503 again.
    @Test func readyzFollowsTheJoin() async throws {
        let seedMembership = "tcp://127.0.0.1:\(try NodeCommandTests().freeLoopbackPort())"
        var configuration = NodeConfiguration(
            id: "r1", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
            logLevel: .warning, metricsEndpoint: "tcp://127.0.0.1:*")
        configuration.membershipSeeds = [seedMembership]
        let node = try Node.start(configuration)
        let port = try #require(node.metricsEndpoint.flatMap { UInt16($0.split(separator: ":").last ?? "") })
        let get = { (path: String) in try await HTTPExchange.get(port: port, "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n") }

        var response = try await get("/readyz")
        #expect(response.status == 503 && response.body == "joining: no other member has answered yet\n", "\(response)")
        #expect(try await get("/healthz").status == 200, "live while not ready")

        let seed = try Node.start(
            NodeConfiguration(
                id: "r2", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: seedMembership,
                logLevel: .warning))
        #expect(await waitFor(node) { $0.peers["r2"]?.status == .alive }, "r1 joined through r2")
        response = try await get("/readyz")
        #expect(response.status == 200 && response.body == "ready: 1 other member(s) alive\n", "\(response)")
        #expect(try await get("/readyz?verbose").status == 200, "the query is not part of the path")

        await seed.stop()
        #expect(await waitFor(node) { $0.peers["r2"]?.status == .gone }, "r2 left")
        response = try await get("/readyz")
        #expect(response.status == 503 && response.body == "alone: no other member is alive\n", "\(response)")
        await node.stop()
    }

    /// A seed that is the node's own advertised membership endpoint (every replica of a set is
    /// given every replica's name) is not joined, and does not count as company.
    @Test func aSeedNamingTheNodeItselfIsIgnored() async throws {
        let own = "tcp://127.0.0.1:\(try NodeCommandTests().freeLoopbackPort())"
        var configuration = NodeConfiguration(
            id: "r3", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: own,
            logLevel: .warning, metricsEndpoint: "tcp://127.0.0.1:*")
        configuration.membershipSeeds = [own]
        let node = try Node.start(configuration)
        let port = try #require(node.metricsEndpoint.flatMap { UInt16($0.split(separator: ":").last ?? "") })
        await node.store.waitUntilIdle()  // the membership started: a join would have gone out
        let response = try await HTTPExchange.get(port: port, "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(response.status == 200, "a cluster of one: \(response)")
        #expect(node.ioCounters().membership?.sent == 0, "no join sent to itself")
        await node.stop()
    }
}
