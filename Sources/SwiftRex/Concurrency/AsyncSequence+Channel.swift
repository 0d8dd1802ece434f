extension AsyncSequence where Self: Sendable {
    /// A channel that iterates this sequence while it is live and dispatches `transform` of each
    /// element.
    ///
    /// A pure receiver (nothing is piped in). Elements are never dispatched during the body: the
    /// iteration runs in a task. Cancelling the channel cancels the task; a sequence that ends or
    /// throws leaves the channel registered until the state drops it.
    public func asChannel<Action: Sendable>(
        id: some Hashable & Sendable,
        lifetime: ChannelLifetime = .permanent,
        file: String = #fileID, function: String = #function, line: UInt = #line,
        _ transform: @escaping @Sendable (Element) -> Action
    ) -> Channel<Action> {
        Channel(id: id, lifetime: lifetime, file: file, function: function, line: line) { dispatch in
            let task = Task {
                do {
                    for try await element in self {
                        if Task.isCancelled { return }
                        dispatch(transform(element))
                    }
                } catch {
                    return
                }
            }
            return .cancelOnly { task.cancel() }
        }
    }
}
