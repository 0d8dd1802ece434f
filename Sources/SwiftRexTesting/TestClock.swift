import Synchronization

/// A clock whose time moves only when a test says so.
///
/// `advance(by:)` wakes, in deadline order, every sleeper registered before the call whose
/// deadline it reaches; it is synchronous and involves no yielding or polling. A sleeper that
/// registers later measures from the clock's `now` at that moment. Tests that wait for a task to
/// park before advancing use `waitForSleepers(_:)`, which is woken by the registration itself.
///
/// ```swift
/// let clock = TestClock()
/// await clock.waitForSleepers(1)
/// clock.advance(by: .seconds(1))
/// ```
public final class TestClock: Clock, Sendable {
    /// A point on a test clock: an offset from its start.
    public struct Instant: InstantProtocol, Sendable, CustomStringConvertible {
        /// Time since the clock's start.
        public let offset: Duration

        /// The instant `offset` after the clock's start.
        public init(offset: Duration) { self.offset = offset }

        /// This instant moved by `duration`.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other` (negative when `other` is earlier).
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public var description: String { "\(offset)" }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Timeline {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var cancelledBeforeRegistration: Set<UInt64> = []
        var nextID: UInt64 = 0
        var registrationWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let timeline = Mutex(Timeline())

    /// A clock at offset zero with no sleepers.
    public init() {}

    /// The clock's time: it moves only through ``advance(by:)`` and ``advance(to:)``.
    public var now: Instant { timeline.withLock { $0.now } }
    /// Zero: any duration can be slept.
    public var minimumResolution: Duration { .zero }

    /// How many sleepers are waiting.
    public var sleeperCount: Int { timeline.withLock { $0.sleepers.count } }

    /// Suspends until the clock is advanced to `deadline` (at once if it already passed); throws
    /// `CancellationError` when the sleeping task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = timeline.withLock { timeline -> UInt64 in
            timeline.nextID += 1
            return timeline.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, waiters) = timeline.withLock { timeline -> (Result<Void, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if timeline.cancelledBeforeRegistration.remove(id) != nil { return (.failure(CancellationError()), []) }
                    if deadline <= timeline.now { return (.success(()), []) }
                    timeline.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (nil, Self.takeSatisfiedWaiters(&timeline))
                }
                for waiter in waiters { waiter.resume() }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = timeline.withLock { timeline -> Sleeper? in
                guard let index = timeline.sleepers.firstIndex(where: { $0.id == id }) else {
                    timeline.cancelledBeforeRegistration.insert(id)
                    return nil
                }
                return timeline.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration`, waking due sleepers in deadline order.
    public func advance(by duration: Duration = .zero) {
        advance(to: now.advanced(by: max(duration, .zero)))
    }

    /// Moves time forward to `deadline` (never backwards), waking due sleepers in deadline order.
    public func advance(to deadline: Instant) {
        while true {
            let due = timeline.withLock { timeline -> Sleeper? in
                let candidates = timeline.sleepers.enumerated().filter { $0.element.deadline <= deadline }
                guard
                    let earliest = candidates.min(by: {
                        $0.element.deadline < $1.element.deadline
                            || ($0.element.deadline == $1.element.deadline && $0.element.id < $1.element.id)
                    })
                else {
                    if timeline.now < deadline { timeline.now = deadline }
                    return nil
                }
                timeline.sleepers.remove(at: earliest.offset)
                if timeline.now < earliest.element.deadline { timeline.now = earliest.element.deadline }
                return earliest.element
            }
            guard let due else { return }
            due.continuation.resume()
        }
    }

    /// Advances to the latest deadline among the sleepers registered now, waking them all.
    public func run() {
        let last = timeline.withLock { $0.sleepers.map(\.deadline).max() }
        if let last { advance(to: last) }
    }

    /// Suspends until at least `count` sleepers are registered, or `timeout` of wall time passes.
    /// Returns whether the count was reached.
    @discardableResult
    public func waitForSleepers(_ count: Int = 1, timeout: Duration = .seconds(2)) async -> Bool {
        let reached = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let ready = self.timeline.withLock { timeline -> Bool in
                        if timeline.sleepers.count >= count { return true }
                        timeline.registrationWaiters.append((count, continuation))
                        return false
                    }
                    if ready { continuation.resume() }
                }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            if !first {
                // Timed out: release the waiter so the group can finish.
                let waiters = timeline.withLock { timeline in
                    defer { timeline.registrationWaiters.removeAll() }
                    return timeline.registrationWaiters.map(\.continuation)
                }
                for waiter in waiters { waiter.resume() }
            }
            group.cancelAll()
            return first
        }
        return reached
    }

    private static func takeSatisfiedWaiters(_ timeline: inout Timeline) -> [CheckedContinuation<Void, Never>] {
        var ready: [CheckedContinuation<Void, Never>] = []
        timeline.registrationWaiters.removeAll { waiter in
            guard timeline.sleepers.count >= waiter.count else { return false }
            ready.append(waiter.continuation)
            return true
        }
        return ready
    }
}
