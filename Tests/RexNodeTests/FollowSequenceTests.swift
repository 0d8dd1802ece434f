import RexControl
import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// Sequence tracking in one follow, per sender, epoch and topic (what the reducer records for
/// every message) — including the numbers a hostile peer can send.
@Suite struct FollowSequenceTests {
    private func record(
        _ follow: inout Follow, _ sequence: UInt64, sender: String = "a", topic: String = "t", epoch: UInt64 = 1,
        snapshot: Bool = false, limit: Int = 1_024
    ) -> Bool {
        follow.recordSequence(sequence, epoch: epoch, sender: sender, topic: topic, snapshot: snapshot, streamLimit: limit)
    }

    private func sequences(_ follow: Follow) -> [String: [String: UInt64]] {
        follow.senders.mapValues(\.lastSequence)
    }

    @Test func gapsCountPerSenderAndTopic() {
        var follow = Follow(topic: "eu.*")
        _ = record(&follow, 1, topic: "eu.x")
        _ = record(&follow, 2, topic: "eu.x")
        _ = record(&follow, 5, topic: "eu.x")  // 3 and 4 missed
        #expect(follow.gaps == 2)
        _ = record(&follow, 7, topic: "eu.y")  // first from this topic: no gap
        _ = record(&follow, 1, sender: "b", topic: "eu.x")  // first from this sender: no gap
        _ = record(&follow, 3, sender: "b", topic: "eu.x")  // 2 missed
        #expect(follow.gaps == 3)
        #expect(sequences(follow) == ["a": ["eu.x": 5, "eu.y": 7], "b": ["eu.x": 3]])
        #expect(follow.streams == 3 && follow.count == 6)
    }

    @Test func repeatsAndOlderMessagesAreCountedAndDropped() {
        var follow = Follow(topic: "t")
        #expect(record(&follow, 4))
        #expect(!record(&follow, 4))  // a repeat
        #expect(!record(&follow, 4))  // and another: each counter counts its own kind
        #expect(!record(&follow, 2))  // older
        #expect(follow.duplicates == 2 && follow.reordered == 1 && follow.gaps == 0 && follow.count == 1)
        #expect(follow.senders["a"]?.lastSequence["t"] == 4)
        #expect(record(&follow, 5))
        #expect(follow.gaps == 0)
    }

    /// The reducer's path: a duplicate or older message never replaces the newest value.
    @Test func onlyAcceptedMessagesSetTheLastValue() {
        var follow = Follow(topic: "t")
        let accepted = follow.record(
            [
                Received(topic: "t", sender: "a", sequence: 5, value: "new"),
                Received(topic: "t", sender: "a", sequence: 3, value: "old"),
                Received(topic: "t", sender: "a", sequence: 5, value: "replayed"),
            ], streamLimit: 16)
        #expect(accepted == 1)
        #expect(follow.lastValue == "new" && follow.count == 1 && follow.reordered == 1 && follow.duplicates == 1)
        // Several accepted in one read: the newest of them is the last value.
        let both = follow.record(
            [Received(topic: "t", sender: "a", sequence: 6, value: "six"), Received(topic: "t", sender: "a", sequence: 7, value: "seven")],
            streamLimit: 16)
        #expect(both == 2 && follow.lastValue == "seven")
    }

    /// A snapshot answer the follower already had live is not a duplicate: it is just dropped.
    @Test func aSnapshotOfAValueAlreadySeenIsDroppedSilently() {
        var follow = Follow(topic: "t")
        #expect(record(&follow, 9))
        #expect(!record(&follow, 9, snapshot: true))
        #expect(follow.duplicates == 0 && follow.reordered == 0 && follow.count == 1)
        #expect(record(&follow, 10, snapshot: true))
    }

    /// Regression: `1` then `UInt64.max` trapped in `Int(sequence - last - 1)`.
    @Test func aSequenceJumpPastIntMaxSaturatesInsteadOfTrapping() {
        var follow = Follow(topic: "t")
        #expect(record(&follow, 1))
        #expect(record(&follow, UInt64.max))
        #expect(follow.gaps == Int.max)
        _ = record(&follow, 1, sender: "b")
        _ = record(&follow, UInt64.max, sender: "b")  // the sum saturates too
        #expect(follow.gaps == Int.max)
    }

    /// A restarted publisher (new epoch) starts again at 1: its tracking restarts, no gap and no
    /// drop are invented.
    @Test func aNewEpochStartsTheSendersSequencesOver() {
        var follow = Follow(topic: "*")
        _ = record(&follow, 500, topic: "x", epoch: 7)
        _ = record(&follow, 80, topic: "y", epoch: 7)
        #expect(follow.streams == 2)
        #expect(record(&follow, 1, topic: "x", epoch: 8))
        #expect(follow.restarts == 1 && follow.gaps == 0 && follow.reordered == 0)
        #expect(sequences(follow) == ["a": ["x": 1]] && follow.streams == 1)
        #expect(record(&follow, 2, topic: "x", epoch: 8))
        #expect(follow.gaps == 0)
        // Any other epoch is a new run, a lower one too (the sender's clock stepped back).
        #expect(record(&follow, 1, topic: "x", epoch: 3))
        #expect(follow.restarts == 2 && sequences(follow) == ["a": ["x": 1]] && follow.reordered == 0)
    }

    /// Followed anew from another peer, on the same topic, a follow is a new subscription: its
    /// sequences start over (no gap is counted across the two). Followed anew as it was, it keeps
    /// them.
    @Test func anotherPeerStartsTheSequencesOverAndTheSameTargetKeepsThem() {
        var follow = Follow(topic: "t", from: "n2", endpoint: "tcp://127.0.0.1:7102")
        #expect(record(&follow, 5))
        follow.retarget(topic: "t", from: "n2", endpoint: "tcp://127.0.0.1:7102")
        #expect(sequences(follow) == ["a": ["t": 5]] && follow.streams == 1)
        follow.retarget(topic: "t", from: "n3", endpoint: "tcp://127.0.0.1:7103")
        #expect(follow.senders.isEmpty && follow.streams == 0)
        #expect(record(&follow, 9))
        #expect(follow.gaps == 0 && sequences(follow) == ["a": ["t": 9]])
    }

    /// 200k distinct senders on a prefix follow once held 151k entries: now the least recently
    /// heard are forgotten past the limit, and counted.
    @Test func streamsStayWithinTheLimitAndTheLeastRecentlyHeardGoFirst() {
        var follow = Follow(topic: "p.*")
        _ = record(&follow, 1, sender: "keeper", topic: "p.x", limit: 4)
        for index in 0..<10 {
            _ = record(&follow, 1, sender: "s\(index)", topic: "p.x", limit: 4)
            _ = record(&follow, UInt64(index) + 2, sender: "keeper", topic: "p.x", limit: 4)  // heard often: stays
        }
        #expect(follow.senders.count == 4 && follow.streams == 4)
        #expect(follow.senders["keeper"] != nil && follow.senders["s9"] != nil && follow.senders["s0"] == nil)
        #expect(follow.evicted == 7)
    }

    @Test func oneSenderWithManyTopicsKeepsTheNewestWithinTheLimit() {
        var follow = Follow(topic: "p.*")
        for index in 0..<100 { _ = record(&follow, 1, topic: "p.\(index)", limit: 8) }
        #expect(follow.streams == 8 && follow.senders["a"]?.lastSequence.count == 8)
        #expect(follow.senders["a"]?.lastSequence["p.99"] == 1)
        #expect(follow.evicted == 92)
    }
}
