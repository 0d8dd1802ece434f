/// The result of `dispatch`: the action as the node queued it (its action object, an optional
/// field left empty left out).
///
/// `accepted: true` means it is in the store's mailbox and will be processed in order (a
/// reducer may still refuse it at a limit, counted in the state's `refused`).
///
/// A node with a data directory says when it answered: `durability` `batch` means the action
/// was committed to its journal first, `none` that it was not waited for. A node without one
/// leaves the member out (nothing survives its process).
public struct DispatchDocument: Codable, Sendable, Equatable {
    public var accepted: Bool
    public var action: JSONValue
    public var durability: DurabilityMode?

    public init(accepted: Bool, action: JSONValue, durability: DurabilityMode? = nil) {
        self.accepted = accepted
        self.action = action
        self.durability = durability
    }
}
