import Foundation

/// Events signalled from any thread (a reactor's timer or reader, a log sink, a channel's
/// cancel), awaited by a test without polling: the wait wakes on the signal itself, and `timeout`
/// only bounds a test whose event never comes.
public final class Arrivals: Sendable {
    /// How long a wait lasts by default before the test fails instead of hanging: generous, so
    /// a loaded machine never reaches it; an event that comes at all comes far sooner.
    public static let safetyTimeout = Duration.seconds(30)

    private let semaphore = DispatchSemaphore(value: 0)

    public init() {}

    /// Records one event.
    public func signal() {
        semaphore.signal()
    }

    /// Waits for `count` more events, on a thread of its own (never blocking the cooperative
    /// pool), for at most `timeout` in all; false if they did not all come.
    public func wait(for count: Int = 1, timeout: Duration = Arrivals.safetyTimeout) async -> Bool {
        let semaphore = self.semaphore
        let (seconds, attoseconds) = timeout.components
        let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        return await withCheckedContinuation { continuation in
            let thread = Thread {
                let all = (0..<count).allSatisfy { _ in semaphore.wait(timeout: deadline) == .success }
                continuation.resume(returning: all)
            }
            thread.start()
        }
    }
}
