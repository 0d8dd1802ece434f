import Foundation
import NodeTestSupport
import RexControl
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// `--advertise HOST`: a node binds one address and tells its peers and operators another (a
/// pod binds 0.0.0.0 and is reached at its DNS name).
@Suite struct AdvertiseTests {
    func configuration(_ arguments: [String]) throws -> NodeConfiguration {
        guard case .run(let configuration) = try NodeCommand.parse(arguments) else { throw CocoaError(.featureUnsupported) }
        return configuration
    }

    @Test func theAdvertisedHostReplacesTheBoundOneAndKeepsThePort() throws {
        let pod = try configuration([
            "--id", "rexnode-0", "--pub", "tcp://0.0.0.0:7101", "--membership", "tcp://0.0.0.0:7301", "--advertise", "rexnode-0.rexnode",
        ])
        #expect(pod.advertiseHost == "rexnode-0.rexnode")
        #expect(pod.advertised("tcp://0.0.0.0:7101") == "tcp://rexnode-0.rexnode:7101")
        #expect(pod.advertised("tcp://[::]:7301") == "tcp://rexnode-0.rexnode:7301")
        #expect(pod.advertised("ipc:///tmp/n1.pub") == "ipc:///tmp/n1.pub", "only tcp endpoints have a host")
        let plain = try configuration(["--id", "n1"])
        #expect(plain.advertiseHost == nil)
        #expect(plain.advertised("tcp://127.0.0.1:7101") == "tcp://127.0.0.1:7101", "announced as bound")
    }

    @Test func aWildcardBindNeedsAnAdvertisedHost() {
        for flag in ["--pub", "--membership"] {
            for endpoint in ["tcp://0.0.0.0:7101", "tcp://*:7101", "tcp://[::]:7101"] {
                #expect {
                    try NodeCommand.parse(["--id", "n1", flag, endpoint])
                } throws: { error in
                    "\(error)".contains("\(flag) \(endpoint) binds every interface") && "\(error)".contains("--advertise HOST")
                }
            }
        }
        #expect(throws: Never.self) {
            try NodeCommand.parse(["--id", "n1", "--pub", "tcp://0.0.0.0:7101", "--membership", "tcp://*:7301", "--advertise", "10.1.2.3"])
        }
    }

    @Test func advertisedHostsAreNamesOrAddressesWithinBounds() {
        let accepted = ["rexnode-0.rexnode", "localhost", "10.0.0.11", "[::1]", "[fd00::1]", String(repeating: "a", count: 40)]
        for host in accepted {
            #expect(NodeConfiguration.isAdvertisableHost(host), "\(host)")
        }
        let refused = [
            "", "a b", "host:7101", "tcp://host", "-lead", "trail-", "a..b", ".", "0.0.0.0", "*", "[::]", "[::1", "[nonsense]",
            "ünïcode", String(repeating: "a", count: 64), String(repeating: "abcdefgh.", count: 29), "host/path", "a\nb",
        ]
        for host in refused {
            #expect(!NodeConfiguration.isAdvertisableHost(host), "\(host.debugDescription)")
            #expect(throws: NodeCommand.UsageError.self) { try NodeCommand.parse(["--id", "n1", "--advertise", host]) }
        }
        #expect(throws: NodeCommand.UsageError.self) { try NodeCommand.parse(["--id", "n1", "--advertise"]) }
    }

    @Test func theAdvertisedEndpointsMustFitTheMembershipsBounds() throws {
        // 53 bytes of host: the membership endpoint peers would be told is 69 bytes, over 60.
        let long = "rexnode-0.rexnode.a-long-namespace.svc.cluster.local"
        #expect {
            try NodeCommand.parse(["--id", "n1", "--advertise", long])
        } throws: { error in
            "\(error)".contains("a membership endpoint takes at most 60 bytes")
        }
        // A `:*` port is counted at its longest, so what passes here fits once bound.
        let fits = String(repeating: "b", count: 60 - "tcp://:65535".utf8.count)
        #expect(throws: Never.self) { try NodeCommand.parse(["--id", "n1", "--membership", "tcp://127.0.0.1:*", "--advertise", fits]) }
        #expect(throws: NodeCommand.UsageError.self) {
            try NodeCommand.parse(["--id", "n1", "--membership", "tcp://127.0.0.1:*", "--advertise", fits + "b"])
        }
        #expect {
            try NodeCommand.parse(["--id", "n1", "--pub", "ipc:///tmp/x", "--advertise", "n1.local"])
        } throws: { error in
            "\(error)".contains("--advertise needs tcp:// endpoints")
        }
    }

    /// A secured node's peers take a publisher's key from the cluster file by its endpoint, so
    /// advertising another host would leave them unable to connect: refused at start.
    @Test func aSecuredNodeAdvertisesThePublisherItsClusterFileLists() throws {
        var configuration = NodeConfiguration(
            id: "rexnode-0", pubEndpoint: "tcp://0.0.0.0:7101", controlEndpoint: "tcp://127.0.0.1:7201",
            membershipEndpoint: "tcp://0.0.0.0:7301")
        let keys = KeyFile(publicKey: String(repeating: "a", count: 40), secretKey: nil)
        let listed = NodeSecurity.Member(id: "rexnode-0", key: keys.publicKey, pub: "tcp://rexnode-0.rexnode:7101")
        configuration.security = NodeSecurity(keys: keys, members: [listed], operators: OperatorsFile(operators: []))
        configuration.advertiseHost = "rexnode-0.rexnode"
        #expect(throws: Never.self) { try configuration.validate() }
        configuration.advertiseHost = "10.0.0.7"
        #expect {
            try configuration.validate()
        } throws: { error in
            "\(error)".contains("but the cluster file lists tcp://rexnode-0.rexnode:7101 for node rexnode-0")
        }
    }

    /// Bound on 127.0.0.1 and advertised as `localhost`: ping answers the advertised endpoints,
    /// and a peer learns (by the membership) and follows the advertised publisher.
    @Test func peersAndOperatorsAreToldTheAdvertisedEndpoints() async throws {
        var configuration = NodeConfiguration(
            id: "a1", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
            settings: NodeSettings(feedIntervalMs: 20, followSettleMs: 10), logLevel: .warning)
        configuration.advertiseHost = "localhost"
        let advertising = try Node.start(configuration)
        let port = { (endpoint: String) in endpoint.split(separator: ":").last.map(String.init) ?? "" }
        var joiner = NodeConfiguration(
            id: "a2", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
            settings: NodeSettings(feedIntervalMs: 20, followSettleMs: 10), logLevel: .warning)
        joiner.membershipSeeds = ["tcp://localhost:\(port(advertising.membershipEndpoint))"]
        let peer = try Node.start(joiner)

        let ping = try await controlRequest(advertising.controlEndpoint, #"{"v": 1, "op": "ping"}"#, timeout: .seconds(30))
        let result = try #require(ping?["result"] as? [String: Any])
        #expect(result["pub"] as? String == "tcp://localhost:\(port(advertising.pubEndpoint))")
        #expect(result["control"] as? String == "tcp://localhost:\(port(advertising.controlEndpoint))")

        let publisher = "tcp://localhost:\(port(advertising.pubEndpoint))"
        #expect(await waitFor(peer) { $0.peers["a1"]?.status == .alive }, "a2 joined through a1's advertised name")
        #expect(peer.state.peers["a1"]?.endpoint == publisher, "the publisher a1 announced on the membership")
        advertising.dispatch(.set(topic: "pod.news", value: "hello"))
        peer.dispatch(.follow(name: "news", topic: "pod.news", from: "a1"))
        #expect(await waitFor(peer) { $0.follows["news"]?.lastValue == "hello" }, "delivered through the advertised publisher")
        await peer.stop()
        await advertising.stop()
    }
}
