/// How the engine paces values delivered into a live channel.
///
/// Pacing never defers opening: a channel opens as soon as it enters the desired set (unless its
/// lifetime settles). Delivery state is per instance, so a recreate starts a fresh window.
public enum ChannelDelivery: Sendable, Hashable, CustomStringConvertible {
    /// Deliver every value as it arrives.
    case immediate
    /// At most one value per `interval`; values inside the window are dropped. With
    /// `latest: true` the last value dropped inside a window is delivered when the window ends,
    /// so the final value always arrives.
    case throttle(Duration, latest: Bool = false)
    /// Deliver only after values go quiet for the duration; a burst collapses to its latest.
    case debounce(Duration)

    var isDebounce: Bool {
        if case .debounce = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .immediate: "immediate"
        case .throttle(let interval, let latest): latest ? "throttle(\(interval), latest)" : "throttle(\(interval))"
        case .debounce(let quiet): "debounce(\(quiet))"
        }
    }
}
