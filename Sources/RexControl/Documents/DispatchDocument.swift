/// The result of `dispatch`: the action as the node queued it.
///
/// `accepted: true` means it is in the store's mailbox and will be processed in order (a
/// reducer may still refuse it at a limit, counted in the state's `refused`).
public struct DispatchDocument: Codable, Sendable, Equatable {
    public var accepted: Bool
    public var action: OperatorAction

    public init(accepted: Bool, action: OperatorAction) {
        self.accepted = accepted
        self.action = action
    }
}
