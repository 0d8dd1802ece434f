/// When a node with a data directory answers "accepted" to an operator action.
public enum DurabilityMode: String, Codable, Sendable, CaseIterable {
    /// At once, before the action is on disk: a crash (kill -9, power loss) may lose the latest
    /// accepted actions.
    case none
    /// Once the batch holding the action is committed to the node's journal (fsync'd): no crash
    /// loses it. Actions that arrive together share one commit (group commit).
    case batch
}
