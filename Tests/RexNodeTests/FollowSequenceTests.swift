import Testing
@testable import RexNode

/// Gap counting in one follow, per sender and per topic (what the reducer records for every message).
@Suite struct FollowSequenceTests {
    @Test func gapsCountPerSenderAndTopic() {
        var follow = Follow(topic: "eu.*")
        follow.recordSequence(1, sender: "a", topic: "eu.x")
        follow.recordSequence(2, sender: "a", topic: "eu.x")
        follow.recordSequence(5, sender: "a", topic: "eu.x")   // 3 and 4 missed
        #expect(follow.gaps == 2)
        follow.recordSequence(7, sender: "a", topic: "eu.y")   // first from this topic: no gap
        follow.recordSequence(1, sender: "b", topic: "eu.x")   // first from this sender: no gap
        follow.recordSequence(3, sender: "b", topic: "eu.x")   // 2 missed
        #expect(follow.gaps == 3)
        #expect(follow.lastSequence == ["a": ["eu.x": 5, "eu.y": 7], "b": ["eu.x": 3]])
    }

    @Test func repeatsAndLateMessagesAreNotGapsAndDoNotGoBack() {
        var follow = Follow(topic: "t")
        follow.recordSequence(4, sender: "a", topic: "t")
        follow.recordSequence(4, sender: "a", topic: "t")       // a repeat
        follow.recordSequence(2, sender: "a", topic: "t")       // late
        #expect(follow.gaps == 0)
        #expect(follow.lastSequence["a"]?["t"] == 4)
        follow.recordSequence(5, sender: "a", topic: "t")
        #expect(follow.gaps == 0)
    }
}

extension FollowSequenceTests {
    @Test func aZeroSequenceIsNotRemembered() {
        // Node sequences start at 1; a 0 from elsewhere must not make the next message look like a gap.
        var follow = Follow(topic: "t")
        follow.recordSequence(0, sender: "x", topic: "t")
        #expect(follow.lastSequence.isEmpty)
        follow.recordSequence(5, sender: "x", topic: "t")
        #expect(follow.gaps == 0 && follow.lastSequence == ["x": ["t": 5]])
        follow.recordSequence(0, sender: "x", topic: "u")
        #expect(follow.lastSequence == ["x": ["t": 5]])
    }
}
