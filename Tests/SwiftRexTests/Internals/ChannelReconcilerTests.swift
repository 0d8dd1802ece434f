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
