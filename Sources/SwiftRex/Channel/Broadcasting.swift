/// What a channel auto-publishes from state, deduplicated.
///
/// `.onChange(value)` delivers `value` when the channel opens and afterwards only when the value
/// differs from the one seen in the previous reconcile cycle. For discrete, possibly repeated
/// sends use `Effect.broadcast(_:channel:)`, which is not deduplicated.
public enum Broadcasting<Value: Hashable & Sendable>: Sendable {
    /// Open without delivering anything.
    case nothing
    /// Deliver `Value` on open and whenever it changes.
    case onChange(Value)
}
