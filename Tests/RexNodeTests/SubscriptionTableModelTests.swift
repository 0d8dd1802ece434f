import SharedTestSupport
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The subscription table against a plain model of what it must do: every route in one list,
/// each directive derived from that list by its definition (the first route of a pattern
/// subscribes it, the last one unsubscribes it, a snapshot route's own request comes after the
/// pattern's subscription and goes before its unsubscription). Seeded random runs of adds and
/// removes, many routes sharing few patterns, compare every step's directives, the routing of
/// every topic and the subscription count.
@Suite struct SubscriptionTableModelTests {
    typealias Table = SubscriptionTable<Int>
    typealias Directive = Table.Directive

    /// The model: routes in the order added.
    struct Model {
        struct Route {
            let id: RouteID
            let pattern: TopicPattern
            let snapshot: Bool
            let target: Int
        }

        let epoch: UInt64
        var routes: [Route] = []

        func request(_ id: RouteID, _ pattern: TopicPattern) -> [UInt8] {
            WireMessage.snapshotTag(epoch: epoch, route: id.rawValue) + pattern.subscription
        }

        mutating func add(_ route: Route) -> [Directive] {
            var directives: [Directive] = []
            if !routes.contains(where: { $0.pattern == route.pattern }) { directives.append(.subscribe(route.pattern.subscription)) }
            if route.snapshot { directives.append(.subscribe(request(route.id, route.pattern))) }
            routes.append(route)
            return directives
        }

        mutating func remove(_ id: RouteID) -> [Directive] {
            guard let index = routes.firstIndex(where: { $0.id == id }) else { return [] }
            let route = routes.remove(at: index)
            var directives: [Directive] = []
            if route.snapshot { directives.append(.unsubscribe(request(route.id, route.pattern))) }
            if !routes.contains(where: { $0.pattern == route.pattern }) { directives.append(.unsubscribe(route.pattern.subscription)) }
            return directives
        }

        func targets(for topic: String) -> [Int] {
            let exact = routes.filter { $0.pattern == .exact(topic) }.map(\.target)
            let prefixes = routes.filter {
                if case .prefix(let prefix) = $0.pattern { return topic.utf8.starts(with: prefix.utf8) }
                return false
            }
            return exact + prefixes.map(\.target)
        }

        var subscriptionCount: Int { Set(routes.map(\.pattern)).count }
    }

    static let topics = ["a", "a.b", "a.c", "b", ""]
    static let patterns: [TopicPattern] = topics.map { .exact($0) } + ["a", "a.", "", "b"].map { .prefix($0) }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func matchesThePlainModel(seed: UInt64) {
        var random = SeededGenerator(state: seed)
        var table = Table(epoch: 12_345_678_901_234_567_890)
        var model = Model(epoch: 12_345_678_901_234_567_890)
        var live: [RouteID] = []
        var removed: [RouteID] = []
        for step in 0..<1_500 {
            if live.isEmpty || Int.random(in: 0..<10, using: &random) < 5 {
                let pattern = Self.patterns.randomElement(using: &random)!
                let snapshot = Bool.random(using: &random)
                let (id, directives) = table.add(pattern, snapshot: snapshot, target: step)
                let expected = model.add(.init(id: id, pattern: pattern, snapshot: snapshot, target: step))
                #expect(directives == expected, "seed \(seed) step \(step): add \(pattern)")
                live.append(id)
            } else if !removed.isEmpty, Int.random(in: 0..<20, using: &random) == 0 {
                // Removing a route again changes nothing.
                let id = removed.randomElement(using: &random)!
                #expect(table.remove(id).isEmpty && model.remove(id).isEmpty, "seed \(seed) step \(step): second remove")
            } else {
                let id = live.remove(at: Int.random(in: 0..<live.count, using: &random))
                #expect(table.remove(id) == model.remove(id), "seed \(seed) step \(step): remove")
                removed.append(id)
            }
            for topic in Self.topics + ["a.bc", "c"] {
                #expect(table.targets(for: topic) == model.targets(for: topic), "seed \(seed) step \(step): targets of '\(topic)'")
            }
            #expect(table.subscriptionCount == model.subscriptionCount, "seed \(seed) step \(step): subscription count")
        }
    }

    @Test func theTagCarriesTheEpochAndRouteInDecimal() {
        var table = Table(epoch: UInt64.max)
        let (id, directives) = table.add(.exact("t"), snapshot: true, target: 0)
        #expect(directives.last == .subscribe(Array("$snap.\(UInt64.max).\(id.rawValue)".utf8) + [0] + Array("t".utf8) + [0]))
        #expect(
            table.snapshotRequest(for: id, .prefix("eu.")) == Array("$snap.\(UInt64.max).\(id.rawValue)".utf8) + [0] + Array("eu.".utf8))
    }
}
