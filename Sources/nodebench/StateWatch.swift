import Foundation
import RexFeeds
import Synchronization

/// Waits for a condition on a store's state without polling: the store's observer (called on its
/// executor after every batch) checks the armed condition and signals once. A benchmark's
/// waiting thread then takes no CPU from the nodes it measures (a `sched_yield` loop took about
/// a fifth of the machine during follow churn).
final class StateWatch<State: Sendable>: Sendable {
    private let armed = Mutex<(@Sendable (State) -> Bool)?>(nil)
    private let signal = DispatchSemaphore(value: 0)

    /// The observer to register with `Store.observe`.
    func observe(_ state: State) {
        let fired = armed.withLock { condition -> Bool in
            guard let check = condition, check(state) else { return false }
            condition = nil
            return true
        }
        if fired { signal.signal() }
    }

    /// Blocks until `condition` holds for a state the store publishes (or for `current`, the
    /// state as of now), or `timeout` seconds pass; returns whether it held.
    func wait(until condition: @escaping @Sendable (State) -> Bool, current: () -> State, timeout: Double) -> Bool {
        armed.withLock { $0 = condition }
        // Already true: disarm — unless the observer fired first, whose signal must be taken.
        if condition(current()) {
            let stillArmed = armed.withLock { armed -> Bool in
                defer { armed = nil }
                return armed != nil
            }
            if stillArmed { return true }
        }
        if signal.wait(timeout: .now() + timeout) == .success { return true }
        // Timed out: disarm; a signal that raced in is taken so the next wait starts clean.
        let stillArmed = armed.withLock { armed -> Bool in
            defer { armed = nil }
            return armed != nil
        }
        if !stillArmed { signal.wait() }
        return !stillArmed
    }
}
