import Testing

@testable import SwiftRex

/// The diff on its own: desired lists in, directives out, nothing opened.
@Suite struct ChannelReconcilerTests {
    static func channel(_ id: String, key: Int = 0, value: Int? = nil) -> Channel<Never> {
        if let value {
            return Channel(id: id, lifetime: .ephemeral(resetKey: key), broadcasting: .onChange(value)) { _ in
                ChannelHandler(receive: { (_: Int) in }, cancel: {})
            }
        }
        return Channel(id: id, lifetime: .ephemeral(resetKey: key)) { _ in .cancelOnly {} }
    }

    /// Directives as text: "open a", "recreate b", "deliver c", "cancel d".
    static func describe(_ reconciler: ChannelReconciler, _ desired: [Channel<Never>]) -> [String] {
        reconciler.directives.map { directive in
            switch directive {
            case .open(let position, _): "open \(desired[position].id)"
            case .recreate(let position, _, _): "recreate \(desired[position].id)"
            case .deliver(let position): "deliver \(desired[position].id)"
            case .cancel(let id, _): "cancel \(id)"
            }
        }
    }

    @Test func directivesComeInDesiredOrderWithCancelsLastInTheirPreviousOrder() {
        var reconciler = ChannelReconciler()
        let first = [Self.channel("a"), Self.channel("b"), Self.channel("c", value: 1), Self.channel("d")]
        #expect(reconciler.reconcile(first, change: .resized) == 4)
        #expect(Self.describe(reconciler, first) == ["open a", "open b", "open c", "open d"])

        // Same length: d replaced by e, b re-keyed, c's value changed, a unchanged.
        let second = [Self.channel("a"), Self.channel("b", key: 1), Self.channel("c", value: 2), Self.channel("e")]
        #expect(reconciler.reconcile(second, change: .ranges([1..<4])) == 3, "only the named positions are examined")
        #expect(Self.describe(reconciler, second) == ["recreate b", "deliver c", "open e", "cancel d"])

        // A new length: the full diff; b and e leave (cancelled in their previous order).
        let third = [Self.channel("f"), Self.channel("a"), Self.channel("c", value: 2)]
        #expect(reconciler.reconcile(third, change: .resized) == 3)
        #expect(Self.describe(reconciler, third) == ["open f", "cancel b", "cancel e"])

        // Nothing changed: no directive, nothing examined.
        #expect(reconciler.reconcile(third, change: .unchanged) == 0)
        #expect(reconciler.directives.isEmpty)
    }

    /// The in-place diff hands a list that turns out to hold duplicates to the full diff, having
    /// changed nothing itself: a new id at two moved positions, and a moved-in id that still
    /// sits at a position that did not move.
    @Test func duplicatesAmongMovedPositionsFallBackToTheFullDiff() {
        var reconciler = ChannelReconciler()
        let first = (0..<16).map { Self.channel("c\($0)") }
        _ = reconciler.reconcile(first, change: .resized)
        var second = first
        second[1] = Self.channel("new")
        second[5] = Self.channel("new")
        #expect(reconciler.reconcile(second, change: .ranges([1..<2, 5..<6])) == 16, "the full diff examined everything")
        #expect(Self.describe(reconciler, second) == ["open new", "cancel c1", "cancel c5"])
        var third = second
        third[2] = Self.channel("c7")  // c7 stays at 7 too
        #expect(reconciler.reconcile(third, change: .ranges([2..<3])) == 16)
        #expect(Self.describe(reconciler, third) == ["cancel c2"])
        // Back to one declaration per id: the in-place diff runs again, and its marks were cleared.
        var fourth = third
        fourth[2] = Self.channel("c2")
        fourth[5] = Self.channel("c5")
        #expect(reconciler.reconcile(fourth, change: .resized) == 16)
        #expect(Self.describe(reconciler, fourth) == ["open c2", "open c5"])
        var fifth = fourth
        fifth[0] = Self.channel("c3")
        fifth[3] = Self.channel("c0")  // a swap: both move, nothing opens or closes
        fifth[4] = Self.channel("z")
        #expect(reconciler.reconcile(fifth, change: .ranges([0..<1, 3..<5])) == 3, "in place: only the named positions")
        #expect(Self.describe(reconciler, fifth) == ["open z", "cancel c4"])
        // From a duplicate-free list, a moved-in id that also stays where it was.
        var sixth = fifth
        sixth[2] = Self.channel("c7")
        #expect(reconciler.reconcile(sixth, change: .ranges([2..<3])) == 16, "the full diff examined everything")
        #expect(Self.describe(reconciler, sixth) == ["cancel c2"])
    }

    @Test func duplicateIdsOpenOnceAndTheLastDeclarationWins() {
        var reconciler = ChannelReconciler()
        let desired = [Self.channel("a", key: 1), Self.channel("b"), Self.channel("a", key: 2)]
        _ = reconciler.reconcile(desired, change: .resized)
        guard case .open(let position, _) = reconciler.directives.first else {
            Issue.record("expected an open first")
            return
        }
        #expect(reconciler.directives.count == 2)
        #expect(position == 2, "the last declaration of a")
    }
}
