/// One node's clock in a simulation: the loop's time as the node's domain reads it (a clock
/// jump moves it ahead of the others), for its store's engine timers and its membership.
///
/// A sleeper is a loop timer in the node's domain; cancelling the sleeping task removes the
/// timer and resumes it with `CancellationError`, as a real clock's sleep does.
final class SimClock: Clock, @unchecked Sendable {
    // @unchecked Sendable: `sleepers` and `cancelledEarly` are touched only on the loop's thread
    // (sleeps start in jobs the loop runs, and tasks are cancelled from them), checked by
    // `checkOnLoop()`.

    /// A point on a simulated clock: time since the simulation started, as this domain reads it.
    struct Instant: InstantProtocol, Sendable, CustomStringConvertible {
        let offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        var description: String { "\(offset)" }
    }

    private struct Sleeper {
        let timer: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private unowned let loop: SimLoop
    let domain: Int
    private var sleepers: [UInt64: Sleeper] = [:]
    private var cancelledEarly: Set<UInt64> = []
    private var nextID: UInt64 = 0

    init(loop: SimLoop, domain: Int) {
        self.loop = loop
        self.domain = domain
    }

    var now: Instant { Instant(offset: loop.localNow(domain)) }
    var minimumResolution: Duration { .zero }

    /// Sleepers waiting now.
    var sleeperCount: Int { sleepers.count }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        loop.checkOnLoop()
        nextID += 1
        let id = nextID
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if cancelledEarly.remove(id) != nil {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                if deadline.offset <= loop.localNow(domain) {
                    continuation.resume()
                    return
                }
                let timer = loop.schedule(domain: domain, at: deadline.offset) { [unowned self] in
                    sleepers.removeValue(forKey: id)?.continuation.resume()
                }
                sleepers[id] = Sleeper(timer: timer, continuation: continuation)
            }
        } onCancel: {
            loop.checkOnLoop()
            guard let sleeper = sleepers.removeValue(forKey: id) else {
                cancelledEarly.insert(id)
                return
            }
            loop.cancelTimer(sleeper.timer)
            sleeper.continuation.resume(throwing: CancellationError())
        }
    }

    /// Ends every sleep with `CancellationError` (the simulation is over).
    func cancelAll() {
        for id in sleepers.keys.sorted() {
            guard let sleeper = sleepers.removeValue(forKey: id) else { continue }
            loop.cancelTimer(sleeper.timer)
            sleeper.continuation.resume(throwing: CancellationError())
        }
    }
}
