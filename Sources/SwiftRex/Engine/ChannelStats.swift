/// Per-id counters and a short history, kept across recreations of the same id.
final class ChannelStats {
    /// Lifecycle events and drops only (deliveries are counted, not logged), so the ring holds
    /// what explains a channel: opens, recreates with their keys, drops and cancels.
    static let historyLimit = 8

    var opens = 0
    var recreates = 0
    var deliveries = 0
    var drops = 0
    private(set) var history: [ChannelEvent] = []

    func record(_ kind: ChannelEvent.Kind, at time: Duration) {
        if history.count == Self.historyLimit { history.removeFirst() }
        history.append(ChannelEvent(at: time, kind: kind))
    }
}
