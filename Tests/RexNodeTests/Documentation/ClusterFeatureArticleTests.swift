import RexCluster
import RexControl
import SwiftRex
import SwiftRexTesting
import Testing

// The example of the article "Writing a cluster feature" (Sources/RexCluster/RexCluster.docc),
// compiled and run as written: a feature that shares each node's lamps with the cluster.

enum LampAction: Sendable, Equatable {
    case turnOn(lamp: String)
    case turnOff(lamp: String)
    case seen([Received])
    case member(MemberReport)
    case membershipTimer
}

struct LampState: Codable, Sendable, Equatable {
    var node: String
    var lit: Set<String> = []
    /// What the other nodes said, by topic (`lamps.<node>`).
    var others: [String: String] = [:]
    var members: [String: String] = [:]
}

enum Lamps: ClusterFeature {
    static let identity = FeatureIdentity(name: "lamps", version: "1")

    static var behavior: Behavior<LampAction, LampState, ClusterEnvironment> {
        Behavior<LampAction, LampState, ClusterEnvironment>
            .reduce { action, state in
                switch action {
                case .turnOn(let lamp): state.lit.insert(lamp)
                case .turnOff(let lamp): state.lit.remove(lamp)
                case .seen(let messages): for message in messages { state.others[message.topic] = message.value }
                case .member(let report) where report.isUp: state.members[report.id] = report.endpoint
                case .member(let report): state.members[report.id] = nil
                case .membershipTimer: break
                }
            }
            .produce { action, _ in
                action == .membershipTimer ? ClusterChannels.membershipTick() : .empty
            }
            .supervise { state in
                Supervision { env in
                    var channels: Keep<LampAction> = [
                        ClusterChannels.publisher(env),
                        ClusterChannels.retained(
                            id: "mine", topic: "lamps.\(state.node)", value: state.lit.sorted().joined(separator: ","), env),
                        ClusterChannels.follow(id: "others", topic: "lamps.*", env) { .seen($0) },
                    ]
                    if let membership = ClusterChannels.membership(env, report: LampAction.member, timer: LampAction.membershipTimer) {
                        channels.append(membership)
                    }
                    for (id, endpoint) in state.members.sorted(by: { $0.key < $1.key }) {
                        channels.append(ClusterChannels.peer(id: "peer[\(id)]", member: id, endpoint: endpoint, env))
                    }
                    return channels
                }
            }
    }

    static let lamps = OperatorResource<LampState>(
        noun: "lamps", verb: "lights", limitFlag: "--max-feeds", limit: \.maxFeeds, count: { $0.lit.count },
        contains: { $0.lit.contains($1) }, keys: { Array($0.lit) })

    static let operatorActions = OperatorActionCatalog<LampAction, LampState>(
        [
            OperatorActionDescription(
                type: "on", fields: [ActionField("lamp", .name)], journal: JournalTags(1), change: .puts(lamps),
                make: { .turnOn(lamp: $0[0]!) }, values: { if case .turnOn(let lamp) = $0 { [lamp] } else { nil } }),
            OperatorActionDescription(
                type: "off", fields: [ActionField("lamp", .name)], journal: JournalTags(2), change: .removes(lamps),
                make: { .turnOff(lamp: $0[0]!) }, values: { if case .turnOff(let lamp) = $0 { [lamp] } else { nil } }),
        ], resources: [lamps])

    static func initialState(_ node: NodeStart) -> LampState {
        LampState(node: node.id, members: node.peers)
    }

    static func restore(_ accepted: OperatorActionFold<LampAction, LampState>, onto initial: LampState) -> LampState {
        var state = initial
        for case .turnOn(let lamp) in accepted.actions { state.lit.insert(lamp) }
        return state
    }
}

@Suite struct ClusterFeatureArticleTests {
    @Test func aLampTurnedOnIsPublishedAndOthersLampsAreFollowed() async throws {
        let network = InMemoryTransport()
        let clock = TestClock()
        let store = TestStore(
            initial: LampState(node: "n1"), behavior: Lamps.behavior,
            environment: ClusterEnvironment(nodeID: "n1", inMemory: network, clock: clock), clock: clock)
        await store.send(.turnOn(lamp: "hall")) { $0.lit = ["hall"] }
        // A retained value goes out at most once per feed interval; a follow opens after the
        // follow settle. One second covers both (the defaults: 100 ms and 50 ms).
        clock.advance(by: .seconds(1))
        await store.settle()
        #expect(network.retained["lamps.n1"] == "hall")

        network.deliver([Received(topic: "lamps.n2", sender: "n2", sequence: 1, value: "porch")])
        await store.receive(.seen([Received(topic: "lamps.n2", sender: "n2", sequence: 1, value: "porch")])) {
            $0.others["lamps.n2"] = "porch"
        }
        // Released (the node stops): the value is no longer kept and the follow is gone.
        await store.finish(cancelChannels: true)
        #expect(network.retained["lamps.n1"] == nil)
        #expect(network.deliver([Received(topic: "lamps.n2", sender: "n2", sequence: 2, value: "")]) == 0)
    }

    @Test func anOperatorsJSONIsReadByTheCatalog() throws {
        let reading = try Lamps.operatorActions.read(.object(["type": .string("on"), "lamp": .string("hall")]))
        #expect(try Lamps.operatorActions.action(reading, within: NodeLimits()) == .turnOn(lamp: "hall"))
        #expect(throws: ControlError.self) { try Lamps.operatorActions.read(.object(["type": .string("dim")])) }
    }
}
