import SwiftRex
import Synchronization

/// Actions sent by effects and channels while a test kit drives the store: held for the test to
/// `receive` one by one instead of being processed automatically.
///
/// It plugs into the store as its `FeedbackInterceptor`, so the core carries none of this. An
/// action counts if its run is live when it is sent, which is when the test kit takes it (the
/// store would check when it processes it; a run that completes right after sending has ended
/// by then, and what it sent still counts). One sent after its run was torn down is dropped.
final class TestInbox<Action: Sendable>: FeedbackInterceptor {
    private struct Contents {
        var held: [DispatchedAction<Action>] = []
        var waiters: [UInt64: CheckedContinuation<DispatchedAction<Action>?, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let contents = Mutex(Contents())

    init() {}

    func intercept(_ action: DispatchedAction<Action>, liveness: RunLiveness) {
        guard liveness.isAlive else { return }  // a torn-down channel or replaced run is silent
        let waiter = contents.withLock { contents -> CheckedContinuation<DispatchedAction<Action>?, Never>? in
            if let (id, waiter) = contents.waiters.min(by: { $0.key < $1.key }) {
                contents.waiters.removeValue(forKey: id)
                return waiter
            }
            contents.held.append(action)
            return nil
        }
        waiter?.resume(returning: action)
    }

    /// Actions held and not yet taken.
    var pending: [DispatchedAction<Action>] { contents.withLock { $0.held } }

    /// Takes the oldest held action, waiting up to `timeout` (wall clock) for one to arrive.
    func next(timeout: Duration) async -> DispatchedAction<Action>? {
        let id = contents.withLock { contents -> UInt64 in
            contents.nextWaiter += 1
            return contents.nextWaiter
        }
        return await withCheckedContinuation { continuation in
            let immediate = contents.withLock { contents -> DispatchedAction<Action>? in
                if !contents.held.isEmpty { return contents.held.removeFirst() }
                contents.waiters[id] = continuation
                return nil
            }
            if let immediate {
                continuation.resume(returning: immediate)
                return
            }
            // The timeout starts only once the waiter is registered, so it cannot miss it.
            Task { [contents = self] in
                try? await Task.sleep(for: timeout)
                contents.expire(id)
            }
        }
    }

    private func expire(_ id: UInt64) {
        let waiter = contents.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.resume(returning: nil)
    }

    /// Drops every held action.
    func clear() { contents.withLock { $0.held.removeAll() } }
}
