import Testing

@testable import SwiftRex

/// The pacing rules on their own: events in, decisions out, no clock or timer involved.
@Suite struct DeliveryPacerTests {
    static func ms(_ value: Int) -> Duration { .milliseconds(value) }

    @Test func immediateDeliveryHasNoPacer() {
        #expect(DeliveryPacer(.immediate) == nil)
    }

    @Test func aThrottleDeliversTheFirstValueAndDropsTheRestOfItsWindow() throws {
        var pacer = try #require(DeliveryPacer(.throttle(Self.ms(100))))
        let first = pacer.arrived(1, at: Self.ms(0))
        #expect(first.deliver as? Int == 1 && first.dropped == nil && first.armTimer == nil)
        let inside = pacer.arrived(2, at: Self.ms(99))
        #expect(inside.deliver == nil && inside.dropped == .throttled && inside.armTimer == nil)
        let next = pacer.arrived(3, at: Self.ms(100))
        #expect(next.deliver as? Int == 3, "a new window")
    }

    @Test func aLatestThrottleHoldsTheLastValueForTheWindowsEnd() throws {
        var pacer = try #require(DeliveryPacer(.throttle(Self.ms(100), latest: true)))
        pacer.openedWithValue(at: Self.ms(10))  // the value on open starts a window
        let held = pacer.arrived(1, at: Self.ms(20))
        #expect(held.deliver == nil && held.dropped == nil && held.armTimer == Self.ms(110), "held, timer armed at the window's end")
        let superseding = pacer.arrived(2, at: Self.ms(30))
        #expect(superseding.dropped == .supersededInThrottleWindow && superseding.armTimer == nil, "the timer is armed once")
        let end = pacer.throttleWindowEnded(at: Self.ms(110))
        #expect(end.deliver as? Int == 2)
        // Delivering at the window's end starts the next window.
        let inNext = pacer.arrived(3, at: Self.ms(150))
        #expect(inNext.deliver == nil && inNext.armTimer == Self.ms(210))
        #expect(pacer.throttleWindowEnded(at: Self.ms(210)).deliver as? Int == 3)
        #expect(pacer.throttleWindowEnded(at: Self.ms(400)).deliver == nil, "nothing held: nothing delivered")
    }

    @Test func aDebounceDeliversOnlyTheLastValueOfABurst() throws {
        var pacer = try #require(DeliveryPacer(.debounce(Self.ms(50))))
        let a = pacer.arrived("a", at: Self.ms(0))
        #expect(a.deliver == nil && a.dropped == nil && a.armTimer == Self.ms(50))
        let b = pacer.arrived("b", at: Self.ms(20))
        #expect(b.dropped == .supersededInDebounceWindow && b.armTimer == Self.ms(70) && b.sequence == a.sequence + 1)
        #expect(pacer.quietPeriodEnded(sequence: a.sequence).deliver == nil, "the first timer names a superseded arrival")
        #expect(pacer.quietPeriodEnded(sequence: b.sequence).deliver as? String == "b")
        #expect(pacer.quietPeriodEnded(sequence: b.sequence).deliver == nil, "delivered once")
    }
}
