import RexControl
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The watchers' state machine, driven with no sockets and a clock of the test's own.
@Suite struct WatchTableTests {
    let start = ContinuousClock.now
    func at(_ milliseconds: Int) -> ContinuousClock.Instant { start.advanced(by: .milliseconds(milliseconds)) }
    func key(_ client: UInt8, _ id: String) -> WatchTable.Key { .init(envelope: [[client]], id: .string(id)) }

    @Test func firstPushCarriesEverythingThenOnlyWhatChanged() throws {
        var table = WatchTable()
        try table.watch(key(1, "w"), documents: [.keep, .state], leaseMs: 10_000, now: at(0))
        #expect(table.hasNewcomers)
        #expect(table.duePushes(now: at(0)).isEmpty, "nothing built yet")
        let round = table.startRound()
        #expect(!table.hasNewcomers)
        table.finishRound(round, changed: [.keep, .state])
        let first = table.duePushes(now: at(1))
        #expect(first == [.init(key: key(1, "w"), sequence: 1, leaseMs: 10_000, documents: [.keep, .state])])
        table.pushed(first[0], now: at(1))
        #expect(table.duePushes(now: at(100)).isEmpty, "nothing changed")

        table.finishRound(table.startRound(), changed: [.state])
        #expect(table.duePushes(now: at(20)).isEmpty, "coalesced: 50 ms since the last push have not passed")
        let second = table.duePushes(now: at(51))
        #expect(second == [.init(key: key(1, "w"), sequence: 2, leaseMs: 10_000, documents: [.state])])
    }

    @Test func aWatcherJoiningDuringARoundWaitsForTheNext() throws {
        var table = WatchTable()
        try table.watch(key(1, "a"), documents: [.state], leaseMs: 10_000, now: at(0))
        let round = table.startRound()
        try table.watch(key(2, "b"), documents: [.state], leaseMs: 10_000, now: at(1))
        table.finishRound(round, changed: [.state])
        #expect(table.duePushes(now: at(2)).map(\.key) == [key(1, "a")])
        #expect(table.hasNewcomers)
        table.finishRound(table.startRound(), changed: [])
        #expect(table.duePushes(now: at(3)).map(\.key).sorted { $0.envelope[0][0] < $1.envelope[0][0] } == [key(1, "a"), key(2, "b")])
    }

    @Test func leasesRenewAndExpire() throws {
        var table = WatchTable()
        try table.watch(key(1, "a"), documents: [.keep], leaseMs: 1_000, now: at(0))
        try table.watch(key(1, "b"), documents: [.keep], leaseMs: 1_000, now: at(0))
        try table.watch(key(2, "a"), documents: [.keep], leaseMs: 1_000, now: at(0))
        #expect(table.renew(envelope: [[1]], id: .string("a"), now: at(900)) == 1)
        #expect(table.renew(envelope: [[2]], id: nil, now: at(900)) == 1)
        #expect(table.expire(now: at(1_000)) == [key(1, "b")])
        #expect(table.renew(envelope: [[1]], id: .string("b"), now: at(1_000)) == 0, "gone: the client must watch again")
        #expect(table.unwatch(envelope: [[1]], id: nil) == 1)
        #expect(table.expire(now: at(1_900)) == [key(2, "a")])
        #expect(table.isEmpty)
    }

    @Test func watchersAreBounded() throws {
        var table = WatchTable()
        for index in 0..<WatchPolicy.maxWatchers {
            try table.watch(key(1, "w\(index)"), documents: [.state], leaseMs: 1_000, now: at(0))
        }
        #expect(throws: ControlError.self) { try table.watch(key(2, "x"), documents: [.state], leaseMs: 1_000, now: at(0)) }
        try table.watch(key(1, "w0"), documents: [.keep], leaseMs: 1_000, now: at(0))  // watching again replaces
        table.drop(key(1, "w1"))
        try table.watch(key(2, "x"), documents: [.state], leaseMs: 1_000, now: at(0))
        #expect(table.watchers.count == WatchPolicy.maxWatchers)
    }
}
