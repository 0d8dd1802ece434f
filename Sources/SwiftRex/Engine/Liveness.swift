import Synchronization

/// Whether a run (a one-shot effect or a channel instance) is still the current one.
///
/// Actions sent by a run carry its liveness; the store drops them at processing time once the run
/// was torn down or replaced. Checking at processing time, on the store's executor where teardown
/// happens, is what makes "nothing fires after teardown" hold even for a send already in flight.
@usableFromInline
final class Liveness: Sendable {
    private let alive = Atomic<Bool>(true)

    @usableFromInline var isAlive: Bool { alive.load(ordering: .acquiring) }

    func end() { alive.store(false, ordering: .releasing) }
}
