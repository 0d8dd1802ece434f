import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The shared subscriber's subscriptions as a pure state machine: each step's directives, and
/// where a topic's messages go.
@Suite struct SubscriptionTableTests {
    typealias Table = SubscriptionTable<String>
    typealias Directive = Table.Directive

    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    private static func tag(_ route: UInt64) -> [UInt8] { WireMessage.snapshotTag(epoch: 9, route: route) }

    /// One step: add a route (pattern, snapshot, target name) or remove the n-th route added.
    enum Step {
        case add(TopicPattern, snapshot: Bool, target: String)
        case remove(Int)
    }

    static let cases: [(String, [Step], [[Directive]])] = [
        (
            "the first route of a pattern subscribes; its snapshot request follows",
            [.add(.exact("a"), snapshot: true, target: "f")],
            [[.subscribe(bytes("a\0")), .subscribe(tag(1) + bytes("a\0"))]]
        ),
        (
            "a second route of the same pattern only asks for its own snapshot",
            [.add(.exact("a"), snapshot: true, target: "f"), .add(.exact("a"), snapshot: true, target: "g")],
            [[.subscribe(bytes("a\0")), .subscribe(tag(1) + bytes("a\0"))], [.subscribe(tag(2) + bytes("a\0"))]]
        ),
        (
            "the pattern is unsubscribed only when its last route goes",
            [.add(.exact("a"), snapshot: false, target: "f"), .add(.exact("a"), snapshot: false, target: "g"), .remove(0), .remove(1)],
            [[.subscribe(bytes("a\0"))], [], [], [.unsubscribe(bytes("a\0"))]]
        ),
        (
            "removing a route drops its snapshot request first",
            [.add(.prefix("eu."), snapshot: true, target: "f"), .remove(0)],
            [
                [.subscribe(bytes("eu.")), .subscribe(tag(1) + bytes("eu."))],
                [.unsubscribe(tag(1) + bytes("eu.")), .unsubscribe(bytes("eu."))],
            ]
        ),
        (
            "an exact topic and a prefix of the same bytes are different subscriptions",
            [.add(.exact("a.b"), snapshot: false, target: "f"), .add(.prefix("a.b"), snapshot: false, target: "g")],
            [[.subscribe(bytes("a.b\0"))], [.subscribe(bytes("a.b"))]]
        ),
        (
            "removing a route twice does nothing the second time",
            [.add(.exact("a"), snapshot: false, target: "f"), .remove(0), .remove(0)],
            [[.subscribe(bytes("a\0"))], [.unsubscribe(bytes("a\0"))], []]
        ),
    ]

    @Test(arguments: cases)
    func directives(_ name: String, _ steps: [Step], _ expected: [[Directive]]) {
        var table = Table(epoch: 9)
        var added: [RouteID] = []
        var produced: [[Directive]] = []
        for step in steps {
            switch step {
            case .add(let pattern, let snapshot, let target):
                let (id, directives) = table.add(pattern, snapshot: snapshot, target: target)
                added.append(id)
                produced.append(directives)
            case .remove(let index):
                produced.append(table.remove(added[index]))
            }
        }
        #expect(produced == expected, "\(name)")
    }

    @Test func topicsGoToExactRoutesThenMatchingPrefixesInTheOrderAdded() {
        var table = Table(epoch: 9)
        _ = table.add(.prefix("a."), snapshot: false, target: "prefix a.")
        let (exact, _) = table.add(.exact("a.b"), snapshot: false, target: "exact a.b")
        _ = table.add(.prefix(""), snapshot: false, target: "everything")
        _ = table.add(.exact("a.b"), snapshot: false, target: "exact a.b again")
        #expect(table.targets(for: "a.b") == ["exact a.b", "exact a.b again", "prefix a.", "everything"])
        #expect(table.targets(for: "a.bc") == ["prefix a.", "everything"], "an exact route never matches a longer topic")
        #expect(table.targets(for: "b") == ["everything"])
        let before = table.generation
        _ = table.remove(exact)
        #expect(table.generation != before, "a change is visible to caches")
        #expect(table.targets(for: "a.b") == ["exact a.b again", "prefix a.", "everything"])
    }

    @Test func snapshotAnswersReachOnlyRoutesThatAskedAndStillExist() {
        var table = Table(epoch: 9)
        let (asked, _) = table.add(.exact("a"), snapshot: true, target: "asked")
        let (silent, _) = table.add(.exact("a"), snapshot: false, target: "silent")
        #expect(table.snapshotTarget(asked) == "asked")
        #expect(table.snapshotTarget(silent) == nil)
        _ = table.remove(asked)
        #expect(table.snapshotTarget(asked) == nil)
        #expect(table.subscriptionCount == 1)
    }
}

/// Late joiners' snapshots: what a request gets, and the rate limit.
@Suite struct RetainedFeedsTests {
    private func request(_ route: UInt64, _ subscription: String) -> ArraySlice<UInt8> {
        ArraySlice(WireMessage.snapshotTag(epoch: 1, route: route) + Array(subscription.utf8))
    }

    @Test func anExactRequestGetsThatFeedAndAPrefixRequestEveryMatchingOne() throws {
        var feeds = RetainedFeeds(rate: 100)
        feeds.retain(topic: "eu.a", value: "1", sequence: 4)
        feeds.retain(topic: "eu.b", value: "2", sequence: 9)
        feeds.retain(topic: "us.a", value: "3", sequence: 1)
        let exactAnswer = feeds.answer(request(1, "eu.a\0"), now: .zero)
        let exact = try #require(exactAnswer)
        #expect(exact.values == [.init(topic: "eu.a", value: "1", sequence: 4)] && exact.refused == 0)
        #expect(Array(exact.tag) == WireMessage.snapshotTag(epoch: 1, route: 1))
        let prefixAnswer = feeds.answer(request(2, "eu."), now: .zero)
        let prefix = try #require(prefixAnswer)
        #expect(prefix.values.map(\.topic) == ["eu.a", "eu.b"])
        let missing = feeds.answer(request(3, "eu.c\0"), now: .zero)
        #expect(missing?.values == [], "no such feed: an empty answer")
        feeds.forget(topic: "eu.a")
        let forgotten = feeds.answer(request(4, "eu.a\0"), now: .zero)
        #expect(forgotten?.values == [])
        let malformed = feeds.answer(ArraySlice(Array("$snap.no-terminator".utf8)), now: .zero)
        #expect(malformed == nil)
    }

    @Test func answersBeyondTheRateAreRefusedUntilTokensRefill() throws {
        var feeds = RetainedFeeds(rate: 10)
        for index in 0..<8 { feeds.retain(topic: "t.\(index)", value: "v", sequence: 1) }
        let firstAnswer = feeds.answer(request(1, "t."), now: .zero)  // 1 token for the request
        let first = try #require(firstAnswer)
        #expect(first.values.count == 8 && first.refused == 0)
        let secondAnswer = feeds.answer(request(2, "t."), now: .zero)  // 1 token left, spent on the request
        let second = try #require(secondAnswer)
        #expect(second.values.isEmpty && second.refused == 8)
        let laterAnswer = feeds.answer(request(3, "t."), now: .seconds(1))
        let later = try #require(laterAnswer)
        #expect(later.values.count == 8, "a second later the bucket is full again")
    }
}
