import RexControl
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The feeds node's operator actions, read, checked, echoed and journaled through their one
/// description each.
@Suite struct OperatorActionCatalogTests {
    let catalog = NodeFeature.operatorActions
    let limits = NodeLimits()

    func action(_ text: String) throws(ControlError) -> NodeAction {
        let (_, request) = ControlRequest<JSONValue>.read(Array(#"{"v": 1, "id": "r", "op": "dispatch", "action": \#(text)}"#.utf8))
        let json = try request.get().action ?? .null
        return try catalog.action(try catalog.read(json), within: limits)
    }

    @Test func readsEveryActionFormAndEchoesItBack() throws {
        let cases: [(String, NodeAction)] = [
            (#"{"type": "set", "topic": "a", "value": "1"}"#, .set(topic: "a", value: "1")),
            (#"{"type": "set", "topic": "a", "value": ""}"#, .set(topic: "a", value: "")),
            (#"{"type": "unset", "topic": "a"}"#, .unset(topic: "a")),
            (#"{"type": "follow", "name": "f", "topic": "a.*"}"#, .follow(name: "f", topic: "a.*", from: nil)),
            (#"{"type": "follow", "name": "f", "topic": "a", "from": "n2"}"#, .follow(name: "f", topic: "a", from: "n2")),
            (#"{"type": "follow", "name": "f", "topic": "a", "from": ""}"#, .follow(name: "f", topic: "a", from: nil)),
            (#"{"type": "follow", "name": "f", "topic": "a", "from": null}"#, .follow(name: "f", topic: "a", from: nil)),
            (#"{"type": "unfollow", "name": "f"}"#, .unfollow(name: "f")),
            (#"{"type": "publish", "topic": "a", "payload": "p", "extra": [1]}"#, .publish(topic: "a", payload: "p")),
            (#"{"type": "addPeer", "id": "n2", "endpoint": "tcp://h:1"}"#, .addPeer(id: "n2", endpoint: "tcp://h:1")),
            (#"{"type": "removePeer", "id": "n2"}"#, .removePeer(id: "n2")),
        ]
        for (text, expected) in cases {
            #expect(try action(text) == expected, "\(text)")
            // The echo is the action's own form: read again, it is the same action.
            let echo = try #require(catalog.json(expected))
            #expect(try catalog.action(try catalog.read(echo), within: limits) == expected)
        }
        #expect(
            catalog.json(.follow(name: "f", topic: "a", from: nil))
                == .object(["type": .string("follow"), "name": .string("f"), "topic": .string("a")]))
        #expect(catalog.json(.membershipTimer) == nil)
        #expect(catalog.typeList == "set, unset, follow, unfollow, publish, addPeer, removePeer")
    }

    @Test func aBadFormIsRefusedNamingTheActionAndTheField() {
        let cases: [(String, ControlError)] = [
            (#""set""#, ControlError(.badRequest, "'action' must be a JSON object with a 'type'")),
            (#"{"topic": "a"}"#, ControlError(.badAction, "action: field 'type' must be a string (one of \(catalog.typeList))")),
            (
                #"{"type": "teleport"}"#,
                ControlError(.unknownAction, "unknown action type 'teleport' (expected one of \(catalog.typeList))")
            ),
            (#"{"type": "set", "topic": "a"}"#, ControlError(.badAction, "action 'set': missing field 'value'")),
            (#"{"type": "set", "topic": 5, "value": "1"}"#, ControlError(.badAction, "action 'set': field 'topic' must be a string")),
            (#"{"type": "set", "topic": null, "value": "1"}"#, ControlError(.badAction, "action 'set': field 'topic' must be a string")),
            (
                #"{"type": "follow", "name": "f", "topic": "a", "from": 7}"#,
                ControlError(.badAction, "action 'follow': field 'from' must be a string")
            ),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { try action(text) }
        }
    }

    @Test func valuesAreCheckedAgainstTheLimits() {
        let long = String(repeating: "x", count: limits.maxNameBytes + 1)
        let cases: [(String, ControlError.Code, String)] = [
            (#"{"type": "set", "topic": "", "value": "1"}"#, .badAction, "action 'set': field 'topic' must not be empty"),
            (#"{"type": "set", "topic": "a\u0000b", "value": "1"}"#, .badAction, "action 'set': a topic cannot contain NUL"),
            (#"{"type": "publish", "topic": "$snap.1", "payload": "p"}"#, .badAction, "action 'publish': topics starting with '$'"),
            (#"{"type": "unset", "topic": "\#(long)"}"#, .tooLarge, "action 'unset': field 'topic' has \(long.utf8.count) bytes"),
            (#"{"type": "follow", "name": "f", "topic": "a", "from": "\#(long)"}"#, .tooLarge, "action 'follow': field 'from'"),
            (#"{"type": "addPeer", "id": "n2", "endpoint": "nowhere"}"#, .badAction, "action 'addPeer': field 'endpoint' must be a ZeroMQ"),
            (#"{"type": "removePeer", "id": ""}"#, .badAction, "action 'removePeer': field 'id' must not be empty"),
        ]
        for (text, code, prefix) in cases {
            let error = #expect(throws: ControlError.self, "\(text)") { try action(text) }
            #expect(error?.code == code && error?.message.hasPrefix(prefix) == true, "\(text): \(String(describing: error))")
        }
        // An unset of a reserved topic is allowed: it only ever removes.
        #expect(throws: Never.self) { try action(#"{"type": "unset", "topic": "$x"}"#) }
        let value = String(repeating: "v", count: limits.maxValueBytes + 1)
        #expect(throws: ControlError.self) { try action(#"{"type": "set", "topic": "a", "value": "\#(value)"}"#) }
    }

    /// The journal's bytes are the format data directories hold: a change of a tag or of the
    /// field order would leave every existing journal unreadable.
    @Test func journalRecordsKeepTheirBytes() throws {
        func record(_ action: NodeAction) -> [UInt8] {
            var bytes: [UInt8] = []
            ActionRecord.append(action, to: &bytes)
            return bytes
        }
        func string(_ text: String) -> [UInt8] { [UInt8(text.utf8.count), 0, 0, 0] + Array(text.utf8) }
        #expect(record(.set(topic: "t", value: "v")) == [1] + string("t") + string("v"))
        #expect(record(.unset(topic: "t")) == [2] + string("t"))
        #expect(record(.follow(name: "f", topic: "t", from: nil)) == [3] + string("f") + string("t"))
        #expect(record(.follow(name: "f", topic: "t", from: "n2")) == [4] + string("f") + string("t") + string("n2"))
        #expect(record(.unfollow(name: "f")) == [5] + string("f"))
        #expect(record(.addPeer(id: "p", endpoint: "tcp://h:1")) == [6] + string("p") + string("tcp://h:1"))
        #expect(record(.removePeer(id: "p")) == [7] + string("p"))
        #expect(record(.publish(topic: "t", payload: "p")).isEmpty)
    }

    /// A catalog is checked as it is made: two actions journaled under one tag (a record would
    /// read back as the other action) stop the process; the same actions under two tags make a
    /// catalog.
    @Test func aJournalTagUsedTwiceStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            _ = OperatorActionCatalog<NodeAction, NodeState>(
                [OperatorActionCatalogTests.unset(tag: 2), OperatorActionCatalogTests.unfollow(tag: 2)],
                resources: [NodeFeature.Resources.feeds, NodeFeature.Resources.follows])
        }
        let catalog = OperatorActionCatalog<NodeAction, NodeState>(
            [Self.unset(tag: 2), Self.unfollow(tag: 5)], resources: [NodeFeature.Resources.feeds, NodeFeature.Resources.follows])
        #expect(catalog.recordByTag.count == 2)
    }

    /// A journaled action must change a key (the durable fold keeps actions by key, and would
    /// drop it unseen): a catalog journaling one that changes none stops the process.
    @Test func aJournaledActionThatChangesNoKeyStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            _ = OperatorActionCatalog<NodeAction, NodeState>([OperatorActionCatalogTests.publish(tag: 9)], resources: [])
        }
        let catalog = OperatorActionCatalog<NodeAction, NodeState>([Self.publish(tag: nil)], resources: [])
        #expect(!catalog.isJournaled(.publish(topic: "t", payload: "p")))
    }

    static func unset(tag: UInt8) -> OperatorActionDescription<NodeAction, NodeState> {
        OperatorActionDescription(
            type: "unset", fields: [ActionField("topic", .topic)], journal: JournalTags(tag), change: .removes(NodeFeature.Resources.feeds),
            make: { .unset(topic: $0[0]!) }, values: { if case .unset(let topic) = $0 { [topic] } else { nil } })
    }

    static func unfollow(tag: UInt8) -> OperatorActionDescription<NodeAction, NodeState> {
        OperatorActionDescription(
            type: "unfollow", fields: [ActionField("name", .name)], journal: JournalTags(tag),
            change: .removes(NodeFeature.Resources.follows), make: { .unfollow(name: $0[0]!) },
            values: { if case .unfollow(let name) = $0 { [name] } else { nil } })
    }

    static func publish(tag: UInt8?) -> OperatorActionDescription<NodeAction, NodeState> {
        OperatorActionDescription(
            type: "publish", fields: [ActionField("topic", .ownTopic), ActionField("payload", .value)],
            journal: tag.map { JournalTags($0) },
            change: nil, make: { .publish(topic: $0[0]!, payload: $0[1]!) },
            values: { if case .publish(let topic, let payload) = $0 { [topic, payload] } else { nil } })
    }

    /// One rule of room for the reducer, the ledger and the control endpoint's check.
    @Test func roomIsTheResourcesRuleEverywhere() throws {
        let limits = NodeLimits(maxFeeds: 1, maxFollows: 1, maxPeers: 1)
        var state = NodeState(id: "n1", settings: NodeSettings(limits: limits))
        NodeFeature.reduce(.set(topic: "a", value: "1"), &state)
        for (action, room) in [
            (NodeAction.set(topic: "a", value: "2"), true), (.set(topic: "b", value: "1"), false), (.unset(topic: "b"), true),
            (.follow(name: "f", topic: "t", from: nil), true), (.publish(topic: "b", payload: "p"), true),
        ] {
            #expect(catalog.hasRoom(for: action, in: state, limits: limits) == room, "\(action)")
        }
        let error = #expect(throws: ControlError.self) {
            try catalog.checkRoom(for: .set(topic: "b", value: "1"), in: state, limits: limits, node: "n1")
        }
        #expect(error == ControlError(.limitReached, "node n1 holds 1 feeds, its limit (--max-feeds)"))
        var refused = state
        NodeFeature.reduce(.set(topic: "b", value: "1"), &refused)
        #expect(refused.feeds == state.feeds && refused.refused == state.refused + 1)
    }
}
