import Synchronization

/// A one-shot signal carrying the instant it fired, awaitable from async code.
final class Completion: Sendable {
    private struct Slot {
        var firedAt: ContinuousClock.Instant?
        var waiter: CheckedContinuation<ContinuousClock.Instant, Never>?
    }

    private let slot = Mutex(Slot())

    /// Fires once (later calls are ignored), recording the current instant.
    func fire() {
        let now = ContinuousClock.now
        let waiter = slot.withLock { slot -> CheckedContinuation<ContinuousClock.Instant, Never>? in
            guard slot.firedAt == nil else { return nil }
            slot.firedAt = now
            defer { slot.waiter = nil }
            return slot.waiter
        }
        waiter?.resume(returning: now)
    }

    /// The instant `fire` was called, waiting for it if needed.
    func wait() async -> ContinuousClock.Instant {
        await withCheckedContinuation { continuation in
            let firedAt = slot.withLock { slot -> ContinuousClock.Instant? in
                if let firedAt = slot.firedAt { return firedAt }
                slot.waiter = continuation
                return nil
            }
            if let firedAt { continuation.resume(returning: firedAt) }
        }
    }
}
