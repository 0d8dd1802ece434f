/// Per-id counters and a short history, kept across recreations of the same id.
final class ChannelStats {
    static let historyLimit = 16

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
