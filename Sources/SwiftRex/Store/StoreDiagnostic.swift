/// Something the store noticed that is almost certainly a bug in the feature using it.
///
/// The store never traps on these: it reports them and carries on in a defined way.
public struct StoreDiagnostic: Sendable, CustomStringConvertible {
    /// Which mistake was noticed.
    public enum Kind: String, Sendable {
        /// Actions kept producing actions synchronously past the store's runaway threshold;
        /// the offending action was dropped.
        case runawayActionLoop
        /// A one-shot effect and a channel were given the same id.
        case idCollision
    }

    /// Which mistake was noticed.
    public let kind: Kind
    /// What happened, with the action or id involved.
    public let message: String

    public var description: String { "SwiftRex \(kind.rawValue): \(message)" }
}
