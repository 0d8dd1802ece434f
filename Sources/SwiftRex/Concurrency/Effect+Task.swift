extension Effect {
    /// Runs `work` in a task and dispatches its result (nothing when it returns nil), then
    /// completes. A cancelled task sends nothing and does not complete.
    public static func task(
        scheduling: EffectScheduling = .immediately,
        file: String = #fileID, function: String = #function, line: UInt = #line,
        _ work: @escaping @Sendable () async -> Action?
    ) -> Effect {
        let source = ActionSource(file: file, function: function, line: line)
        return Effect(
            subscribe: { send, complete in
                let task = Task {
                    guard !Task.isCancelled else { return }
                    let action = await work()
                    guard !Task.isCancelled else { return }
                    if let action { send(DispatchedAction(action, source: source)) }
                    complete()
                }
                return SubscriptionToken { task.cancel() }
            }, scheduling: scheduling)
    }

    /// Runs throwing `work` in a task and dispatches `transform` of its result — exactly one
    /// action, success or failure — then completes. A cancelled task sends nothing.
    public static func throwingTask<Success: Sendable>(
        scheduling: EffectScheduling = .immediately,
        file: String = #fileID, function: String = #function, line: UInt = #line,
        transform: @escaping @Sendable (Result<Success, any Error>) -> Action,
        _ work: @escaping @Sendable () async throws -> Success
    ) -> Effect {
        let source = ActionSource(file: file, function: function, line: line)
        return Effect(
            subscribe: { send, complete in
                let task = Task {
                    guard !Task.isCancelled else { return }
                    let result: Result<Success, any Error>
                    do { result = .success(try await work()) } catch { result = .failure(error) }
                    guard !Task.isCancelled else { return }
                    send(DispatchedAction(transform(result), source: source))
                    complete()
                }
                return SubscriptionToken { task.cancel() }
            }, scheduling: scheduling)
    }

    /// Dispatches `transform` of every element of `sequence`, then completes when it ends.
    /// An error thrown by the sequence ends the effect without completing; cancellation stops it.
    public static func asyncSequence<S: AsyncSequence & Sendable>(
        _ sequence: S,
        scheduling: EffectScheduling = .immediately,
        file: String = #fileID, function: String = #function, line: UInt = #line,
        _ transform: @escaping @Sendable (S.Element) -> Action
    ) -> Effect {
        let source = ActionSource(file: file, function: function, line: line)
        return Effect(
            subscribe: { send, complete in
                let task = Task {
                    do {
                        for try await element in sequence {
                            if Task.isCancelled { return }
                            send(DispatchedAction(transform(element), source: source))
                        }
                    } catch {
                        return
                    }
                    if !Task.isCancelled { complete() }
                }
                return SubscriptionToken { task.cancel() }
            }, scheduling: scheduling)
    }
}
