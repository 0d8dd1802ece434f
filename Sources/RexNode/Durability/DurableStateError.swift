import RexCluster

/// Why a node's durable state cannot be used: the node refuses to start rather than start
/// empty, and the message says what was found and what the operator can do.
public struct DurableStateError: Error, Sendable, CustomStringConvertible {
    /// What was found, and what the operator can do.
    public let message: String

    init(_ message: String) { self.message = message }

    /// Damage found in the state the node would recover.
    static func damaged(_ what: String, directory: String) -> DurableStateError {
        DurableStateError(
            "the durable state in \(directory) is damaged: \(what). Nothing was changed. "
                + "Restore \(directory) from a backup, or move it aside to start this node empty "
                + "(its feeds, follows and peer changes are then lost).")
    }

    public var description: String { message }
}
