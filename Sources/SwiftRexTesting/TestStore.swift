public import SwiftRex

/// Drives a real store — reduce, produce, the effect engine and supervise/reconcile — one action
/// at a time, and asserts every state change and every action effects send back.
///
/// Actions sent by effects and channels are not processed automatically: each must be taken with
/// `receive(_:)`, which processes it and asserts the state change. `finish()` fails the test on
/// anything left unasserted: received actions not taken, effects still running, channels still
/// live (unless asked to tear them down).
///
/// ```swift
/// let clock = TestClock()
/// let store = TestStore(initial: TimerState(), behavior: timer, environment: TimerEnv(clock: clock), clock: clock)
/// await store.send(.start) { $0.isRunning = true }
/// await clock.waitForSleepers(1)
/// clock.advance(by: .seconds(1))
/// await store.receive(.tick) { $0.elapsed = 1 }
/// await store.send(.stop) { $0.isRunning = false }
/// await store.finish()
/// ```
public final class TestStore<Action: Sendable & Equatable, State: Sendable & Equatable, Environment: Sendable>: Sendable {
    /// The real store underneath.
    public let store: Store<Action, State, Environment>
    private let inbox: TestInbox<Action>
    /// How long `receive` and `finish` wait (wall clock) before failing.
    public let timeout: Duration

    /// Creates a test store over a real store running `behavior`.
    public init(
        initial: State,
        behavior: Behavior<Action, State, Environment>,
        environment: Environment,
        clock: any Clock<Duration> = ImmediateClock(),
        timeout: Duration = .seconds(2),
        options: StoreOptions = StoreOptions()
    ) {
        let inbox = TestInbox<Action>()
        self.inbox = inbox
        self.timeout = timeout
        self.store = Store(
            initial: initial, behavior: behavior, environment: environment, clock: clock, executor: .queue(label: "SwiftRex.TestStore"),
            options: options, interceptor: inbox
        )
    }

    /// The current state.
    public var state: State { store.state }

    /// Sends `action` and asserts the state change: `update` mutates the previous state into the
    /// expected one (omit it when the action must not change state).
    public func send(
        _ action: Action,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: Int = #column,
        _ update: ((inout State) throws -> Void)? = nil
    ) async {
        let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        await reportUnreceived("must be received before sending \(action)", at: location)
        let source = ActionSource(file: fileID, function: "send", line: line)
        let (before, after) = await store.processAsBatch(DispatchedAction(action, source: source))
        Self.assertState(before: before, after: after, update: update, what: "sending \(action)", location: location)
    }

    /// Takes the next action an effect or channel sent (waiting up to `timeout`), asserts it equals
    /// `expected`, processes it, and asserts the state change.
    public func receive(
        _ expected: Action,
        timeout: Duration? = nil,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: Int = #column,
        _ update: ((inout State) throws -> Void)? = nil
    ) async {
        let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        guard let received = await inbox.next(timeout: timeout ?? self.timeout) else {
            TestFailure.record("Expected to receive \(expected), but nothing arrived within \(timeout ?? self.timeout)", at: location)
            return
        }
        if received.action != expected {
            TestFailure.record("Received \(received.action), expected \(expected)", at: location)
        }
        let (before, after) = await store.processAsBatch(received)
        Self.assertState(before: before, after: after, update: update, what: "receiving \(received.action)", location: location)
    }

    /// Asserts that no action arrives within `duration` of wall time.
    public func expectNoAction(
        within duration: Duration = .milliseconds(50),
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: Int = #column
    ) async {
        await store.waitUntilIdle()
        if let unexpected = await inbox.next(timeout: duration) {
            TestFailure.record(
                "Expected no action, received \(unexpected.action)",
                at: TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
            )
        }
    }

    /// The engine's keep set, after everything due has been processed.
    public func keep() async -> KeepSnapshot {
        await store.waitUntilIdle()
        return await store.keep()
    }

    /// Waits until nothing is queued and no engine timer is due.
    public func settle() async {
        await store.waitUntilIdle()
    }

    /// Drops actions received and not yet asserted.
    public func skipReceivedActions() async {
        await store.waitUntilIdle()
        inbox.clear()
    }

    /// Releases the store now: every channel's cancel runs once.
    public func release() async {
        await store.release()
    }

    /// Fails the test on anything left unasserted: received actions not taken, one-shot effects
    /// still running, and channels still live (tear them down first, or pass `cancelChannels`).
    public func finish(
        cancelChannels: Bool = false,
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: Int = #column
    ) async {
        let location = TestLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        await reportUnreceived("were received and not asserted", at: location)
        let running = await store.inFlightEffects()
        if running > 0 {
            TestFailure.record("\(running) effect(s) are still running or waiting", at: location)
        }
        if !cancelChannels {
            let live = await store.keep().channels
            if !live.isEmpty {
                TestFailure.record(
                    "\(live.count) channel(s) are still open: \(live.map { "\($0.id)" }.joined(separator: ", "))",
                    at: location
                )
            }
        }
        await store.release()
    }

    /// Waits until the store is idle, then records an issue if actions are waiting to be received.
    private func reportUnreceived(_ problem: String, at location: TestLocation) async {
        await store.waitUntilIdle()
        let unreceived = inbox.pending
        guard !unreceived.isEmpty else { return }
        let list = unreceived.map { "\($0.action)" }.joined(separator: ", ")
        TestFailure.record("\(unreceived.count) action(s) \(problem): \(list)", at: location)
    }

    private static func assertState(
        before: State, after: State, update: ((inout State) throws -> Void)?, what: String, location: TestLocation
    ) {
        var expected = before
        do {
            try update?(&expected)
        } catch {
            TestFailure.record("The state update for \(what) threw: \(error)", at: location)
            return
        }
        guard expected != after else { return }
        TestFailure.record(
            "State after \(what) differs from the expected state:\n\(StateDiff.describe(expected: expected, actual: after))", at: location)
    }
}

/// A line-by-line difference of two values' dumps.
enum StateDiff {
    static func describe<Value>(expected: Value, actual: Value) -> String {
        var expectedDump = ""
        var actualDump = ""
        dump(expected, to: &expectedDump)
        dump(actual, to: &actualDump)
        let expectedLines = expectedDump.split(separator: "\n", omittingEmptySubsequences: false)
        let actualLines = actualDump.split(separator: "\n", omittingEmptySubsequences: false)
        var output: [String] = []
        for index in 0..<max(expectedLines.count, actualLines.count) {
            let lhs = index < expectedLines.count ? String(expectedLines[index]) : nil
            let rhs = index < actualLines.count ? String(actualLines[index]) : nil
            if lhs == rhs {
                if let lhs { output.append("  \(lhs)") }
            } else {
                if let lhs { output.append("− \(lhs)   (expected)") }
                if let rhs { output.append("+ \(rhs)   (actual)") }
            }
        }
        return output.joined(separator: "\n")
    }
}
