import Chat
import RexCluster
import RexControl
import SwiftRex
import SwiftRexTesting
import Testing

/// The chat feature without sockets: `ChatFeature` in a `TestStore` over the in-memory transport,
/// on a `TestClock`. The membership's reports are sent as actions, and other nodes' rosters are
/// delivered by the transport, as a live node's sockets would.
@Suite struct ChatFeatureTests {
    /// Node `n1`, started (its first reconcile opened the publisher).
    struct Node {
        let clock = TestClock()
        let network = InMemoryTransport()
        let store: TestStore<ChatAction, ChatState, ClusterEnvironment>

        init(_ initial: ChatState? = nil, limits: NodeLimits = NodeLimits()) async {
            let settings = NodeSettings(feedIntervalMs: 100, followSettleMs: 50, limits: limits)
            store = TestStore(
                initial: initial ?? ChatFeature.initialState(NodeStart(id: "n1", settings: settings)), behavior: ChatFeature.behavior,
                environment: ClusterEnvironment(nodeID: "n1", inMemory: network, settings: settings, clock: clock), clock: clock)
            await store.settle()
        }

        /// The ids of the channels the engine keeps now, sorted.
        func channels() async -> [String] { await store.keep().channels.map { "\($0.id)" }.sorted() }

        /// Sends a join and expects `member` in the room and the room's merged roster `roster`.
        func join(_ room: String, _ member: String, roster: [String]) async {
            await store.send(.join(room: room, member: member)) {
                $0.local[room, default: []].append(member)
                $0.local[room]!.sort()
                $0.rooms[room] = roster
            }
        }

        /// The membership reports `id` at `status`; `update` states what else that changes.
        func member(_ id: String, _ status: Peer.MembershipStatus, _ update: @escaping (inout ChatState) -> Void = { _ in }) async {
            await store.send(.memberChanged(MemberReport(id: id, endpoint: Self.endpoint(id), status: status, incarnation: 0, atMs: 0))) {
                var peer = Peer(endpoint: Self.endpoint(id))
                peer.status = status.peerStatus
                peer.membership = status
                peer.incarnation = 0
                $0.members[id] = peer
                update(&$0)
            }
        }

        static func endpoint(_ id: String) -> String { "tcp://\(id):7101" }

        /// `sender`'s roster of `room`, as its retained value arrives.
        static func roster(_ room: String, from sender: String, _ value: String, topic: String? = nil) -> Received {
            Received(topic: topic ?? "presence.\(room).\(sender)", sender: sender, sequence: 1, value: value)
        }
    }

    @Test func aJoinOpensTheRoomsFollowAndRetainsItsRoster() async {
        let node = await Node()
        #expect(await node.channels() == ["pub"])
        await node.join("lobby", "bob", roster: ["bob@n1"])
        #expect(await node.channels() == ["pub", "room[lobby]", "roster[lobby]"])
        #expect(node.network.events == [.addRoute(.prefix("presence.lobby."), snapshot: true)])
        #expect(node.network.retained == ["presence.lobby.n1": "bob"])

        await node.join("lobby", "ann", roster: ["ann@n1", "bob@n1"])
        _ = await node.clock.waitForSleepers(1)  // the roster's feed interval
        node.clock.advance(by: .milliseconds(100))
        await node.store.settle()
        #expect(node.network.retained == ["presence.lobby.n1": "ann\0bob"], "the roster, sorted, NUL between names")
        #expect(node.network.events.count == 1, "the same follow: a room's topic never changes")
        await node.store.finish(cancelChannels: true)
    }

    @Test func theLastLeaveEndsTheFollowAndTheRetainedRosterAfterAnEmptyOne() async {
        let node = await Node()
        await node.join("lobby", "ann", roster: ["ann@n1"])
        await node.join("lobby", "bob", roster: ["ann@n1", "bob@n1"])
        await node.store.send(.leave(room: "lobby", member: "ann")) {
            $0.local["lobby"] = ["bob"]
            $0.rooms["lobby"] = ["bob@n1"]
        }
        #expect(await node.channels() == ["pub", "room[lobby]", "roster[lobby]"], "bob is still here")
        node.network.clearRecords()

        await node.store.send(.leave(room: "lobby", member: "bob")) {
            $0.local = [:]
            $0.rooms = [:]
        }
        #expect(await node.channels() == ["pub"])
        #expect(node.network.events == [.removeRoute(.prefix("presence.lobby."))])
        #expect(node.network.retained.isEmpty, "no roster kept for late joiners")
        #expect(node.network.published.map(\.topic) == ["presence.lobby.n1"])
        #expect(node.network.published.map(\.value) == [""], "an empty roster tells the others")
        await node.store.finish(cancelChannels: true)
    }

    @Test func anotherNodesRosterShowsInTheMergedRoster() async {
        let node = await Node()
        await node.member("n2", .alive)
        #expect(await node.channels() == ["peer[n2]", "pub"])
        #expect(node.network.events == [.connect(Node.endpoint("n2"))])
        await node.join("lobby", "ann", roster: ["ann@n1"])

        let roster = Node.roster("lobby", from: "n2", "bob\0cat")
        #expect(node.network.deliver([roster]) == 1)
        await node.store.receive(.rosters(room: "lobby", [roster])) {
            $0.remote["lobby"] = ["n2": ["bob", "cat"]]
            $0.rooms["lobby"] = ["ann@n1", "bob@n2", "cat@n2"]
        }

        // Dropped: a stranger's roster, one on another node's topic, one with an empty name.
        let dropped = [
            Node.roster("lobby", from: "n9", "eve"), Node.roster("lobby", from: "n2", "eve", topic: "presence.lobby.n3"),
            Node.roster("lobby", from: "n2", "eve\0\0"),
        ]
        node.network.deliver(dropped)
        await node.store.receive(.rosters(room: "lobby", dropped))

        let empty = Node.roster("lobby", from: "n2", "")
        node.network.deliver([empty])
        await node.store.receive(.rosters(room: "lobby", [empty])) {
            $0.remote = [:]
            $0.rooms["lobby"] = ["ann@n1"]
        }
        await node.store.finish(cancelChannels: true)
    }

    @Test func aMemberThatDiesOrLeavesDropsOutOfEveryRoster() async {
        let node = await Node()
        await node.member("n2", .alive)
        await node.member("n3", .alive)
        await node.join("lobby", "ann", roster: ["ann@n1"])
        await node.join("dev", "ann", roster: ["ann@n1"])
        let rosters = [
            Node.roster("lobby", from: "n2", "bob"), Node.roster("lobby", from: "n3", "cat"), Node.roster("dev", from: "n2", "bob"),
        ]
        node.network.deliver(Array(rosters[0...1]))
        await node.store.receive(.rosters(room: "lobby", Array(rosters[0...1]))) {
            $0.remote["lobby"] = ["n2": ["bob"], "n3": ["cat"]]
            $0.rooms["lobby"] = ["ann@n1", "bob@n2", "cat@n3"]
        }
        node.network.deliver([rosters[2]])
        await node.store.receive(.rosters(room: "dev", [rosters[2]])) {
            $0.remote["dev"] = ["n2": ["bob"]]
            $0.rooms["dev"] = ["ann@n1", "bob@n2"]
        }

        await node.member("n2", .suspect)  // suspect: still in, still connected
        #expect(await node.channels() == ["peer[n2]", "peer[n3]", "pub", "room[dev]", "room[lobby]", "roster[dev]", "roster[lobby]"])
        await node.member("n2", .dead) {
            $0.remote = ["lobby": ["n3": ["cat"]]]
            $0.rooms = ["lobby": ["ann@n1", "cat@n3"], "dev": ["ann@n1"]]
        }
        await node.member("n3", .left) {
            $0.remote = [:]
            $0.rooms["lobby"] = ["ann@n1"]
        }
        #expect(await node.channels() == ["pub", "room[dev]", "room[lobby]", "roster[dev]", "roster[lobby]"])
        await node.store.finish(cancelChannels: true)
    }

    @Test func theCatalogRefusesAnUnknownActionAndBadFields() throws {
        let catalog = ChatFeature.operatorActions
        let limits = NodeLimits(maxNameBytes: 8)
        func read(_ members: [String: String]) throws(ControlError) -> ChatAction {
            try catalog.action(catalog.read(.object(members.mapValues { .string($0) })), within: limits)
        }
        #expect(try read(["type": "join", "room": "lobby", "member": "ann"]) == .join(room: "lobby", member: "ann"))
        #expect(try read(["type": "leave", "room": "lobby", "member": "ann"]) == .leave(room: "lobby", member: "ann"))
        let refusals: [([String: String], ControlError.Code, String)] = [
            (["type": "shout", "room": "lobby"], .unknownAction, "expected one of join, leave"),
            (["type": "join", "room": "lobby"], .badAction, "missing field 'member'"),
            (["type": "join", "room": "lobby", "member": ""], .badAction, "'member' must not be empty"),
            (["type": "join", "room": "a-long-room", "member": "ann"], .tooLarge, "field 'room' has 11 bytes"),
            (["type": "leave", "room": "lobby", "member": "a\0b"], .badAction, "cannot contain NUL"),
        ]
        for (members, code, message) in refusals {
            let error = #expect(throws: ControlError.self) { try read(members) }
            #expect(error?.code == code)
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
        }
    }

    /// Two memberships fit one roster of 8-byte names in 18 bytes: a third is refused by
    /// admission and by the reducer alike, and the same member of another room is a new key.
    @Test func aNodeHoldsNoMoreMembershipsThanOneRosterValueFits() async throws {
        let limits = NodeLimits(maxNameBytes: 8, maxValueBytes: 18)
        let node = await Node(limits: limits)
        await node.join("lobby", "ann", roster: ["ann@n1"])
        await node.join("dev", "ann", roster: ["ann@n1"])
        await node.store.send(.join(room: "lobby", member: "ann"))  // held already: no new key
        let third = ChatAction.join(room: "lobby", member: "bob")
        let error = #expect(throws: ControlError.self) {
            try ChatFeature.operatorActions.checkRoom(for: third, in: node.store.state, limits: limits, node: "n1")
        }
        #expect(error?.code == .limitReached)
        await node.store.send(third)  // the reducer refuses it too: no change
        await node.store.finish(cancelChannels: true)
    }

    /// A restart: the journal's records fold to the last action per room and member, and the
    /// restored state opens the channels of every room it holds.
    @Test func restoreRebuildsTheLocalRoomsFromTheFold() async throws {
        let catalog = ChatFeature.operatorActions
        var records: [UInt8] = []
        for action in [
            ChatAction.join(room: "lobby", member: "ann"), .join(room: "lobby", member: "bob"), .join(room: "dev", member: "ann"),
            .leave(room: "lobby", member: "bob"), .join(room: "ops", member: "cat"), .leave(room: "ops", member: "cat"),
        ] {
            #expect(catalog.appendRecord(action, to: &records))
        }
        var fold = OperatorActionFold(catalog)
        try catalog.decodeRecords(records) { fold.apply($0) }

        let initial = ChatFeature.initialState(NodeStart(id: "n1", settings: NodeSettings()))
        let restored = ChatFeature.restore(fold, onto: initial)
        #expect(restored.local == ["lobby": ["ann"], "dev": ["ann"]])
        #expect(restored.rooms == ["lobby": ["ann@n1"], "dev": ["ann@n1"]])

        let node = await Node(restored)
        #expect(await node.channels() == ["pub", "room[dev]", "room[lobby]", "roster[dev]", "roster[lobby]"])
        #expect(node.network.retained == ["presence.dev.n1": "ann", "presence.lobby.n1": "ann"])
        await node.store.finish(cancelChannels: true)
    }
}
