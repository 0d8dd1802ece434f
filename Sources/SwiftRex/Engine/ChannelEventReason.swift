/// Why a channel instance was cancelled or a value into it was not delivered: every reason the
/// engine gives, in one byte (the per-id history stores one per event; the text is made only
/// when a snapshot is read).
enum ChannelEventReason: UInt8, CaseIterable {
    case leftTheSet
    case resetKeyChanged
    case strictMode
    case replaced
    case completed
    case cancelledByID
    case storeReleased
    case displaced
    case broadcastWhileSettling
    case typeMismatch
    case throttled
    case supersededInThrottleWindow
    case supersededInDebounceWindow

    /// The reason as `ChannelEvent` and the keep documents spell it.
    var text: String {
        switch self {
        case .leftTheSet: "left the desired set"
        case .resetKeyChanged: "reset key changed"
        case .strictMode: "strict mode"
        case .replaced: "replaced"
        case .completed: "completed"
        case .cancelledByID: "cancel(id:)"
        case .storeReleased: "store released"
        case .displaced: "displaced by a supervised channel"
        case .broadcastWhileSettling: "broadcast while settling"
        case .typeMismatch: "value type does not match the channel"
        case .throttled: "throttled"
        case .supersededInThrottleWindow: "superseded in throttle window"
        case .supersededInDebounceWindow: "superseded in debounce window"
        }
    }
}
