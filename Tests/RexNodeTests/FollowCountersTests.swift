import RexControl
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The metrics document's message counters: every follow's counters summed, each on its own,
/// saturating instead of trapping.
@Suite struct FollowCountersTests {
    @Test func everyCounterIsSummedOverEveryFollow() {
        var follows: [String: Follow] = [:]
        for index in 1...300 {
            var follow = Follow(topic: "t\(index)")
            follow.gaps = index
            follow.duplicates = 2 * index
            follow.reordered = 3 * index
            follow.restarts = index % 2
            follow.evicted = index == 7 ? 5 : 0
            follows["f\(index)"] = follow
        }
        let totals = FollowCounters(follows)
        let sum = 300 * 301 / 2
        #expect(totals.gaps == sum && totals.duplicates == 2 * sum && totals.reordered == 3 * sum)
        #expect(totals.restarts == 150 && totals.evicted == 5)
        #expect(FollowCounters([:]) == FollowCounters([:]) && FollowCounters([:]).gaps == 0)
    }

    @Test func aHugeCounterSaturatesItsSumOnly() {
        var big = Follow(topic: "a")
        big.gaps = Int.max - 1
        var more = Follow(topic: "b")
        more.gaps = 10
        more.duplicates = 4
        let totals = FollowCounters(["a": big, "b": more, "c": more])
        #expect(totals.gaps == Int.max, "Int.max - 1 + 20 saturates")
        #expect(totals.duplicates == 8, "the other sums are untouched")
    }
}
