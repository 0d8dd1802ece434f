import RexCluster
import RexControl

/// Everything a run did that the checkers and the replay read: a running hash of the trace (each
/// delivery, publish, status change, acknowledgement and fault, with its simulated time), the
/// membership's declarations, and a bounded text trace when asked for.
final class History: @unchecked Sendable {
    // @unchecked Sendable: written only on the loop's thread (by the network, the nodes' executors
    // and the feature's reducer probe, all run by the loop); Sendable so the probe can hold it.
    /// One member's status as another reported it.
    struct StatusChange {
        let at: Duration
        let observer: Int
        let member: String
        let status: Peer.MembershipStatus
        let incarnation: UInt64
    }

    private(set) var hash = TraceHash()
    private(set) var events = 0
    private(set) var statusChanges: [StatusChange] = []
    /// Text lines of the trace (nil: not kept), at most `lineLimit`.
    private(set) var lines: [String]?
    private let lineLimit: Int
    private let now: () -> Duration

    init(keepLines: Bool, lineLimit: Int = 200_000, now: @escaping () -> Duration) {
        lines = keepLines ? [] : nil
        self.lineLimit = lineLimit
        self.now = now
    }

    private func line(_ text: @autoclosure () -> String) {
        guard lines != nil, lines!.count < lineLimit else { return }
        lines!.append("\(now()) \(text())")
    }

    private func event(_ kind: UInt64) {
        events += 1
        hash.mix(kind)
        hash.mix(now())
    }

    func delivered(from: Int, to: Int, _ frame: Frame, at time: Duration) {
        event(1)
        hash.mix(from)
        hash.mix(to)
        switch frame {
        case .data(let message, let route):
            hash.mix(message.topic)
            hash.mix(message.sequence)
            hash.mix(UInt64(route?.rawValue ?? 0))
            line("deliver n\(from + 1)->n\(to + 1) \(message.topic)#\(message.sequence)\(message.isSnapshot ? " snapshot" : "")")
        case .subscribe(let pattern):
            hash.mix(2)
            line("subscribe n\(from + 1)->n\(to + 1) \(pattern)")
        case .unsubscribe(let pattern):
            hash.mix(3)
            line("unsubscribe n\(from + 1)->n\(to + 1) \(pattern)")
        case .snapshotRequest(let route, let pattern, _):
            hash.mix(4)
            hash.mix(UInt64(route.rawValue))
            line("snapshot-request n\(from + 1)->n\(to + 1) \(pattern)")
        case .membership(let bytes):
            hash.mix(5)
            hash.mix(bytes.count)
            if let first = bytes.first { hash.mix(UInt64(first)) }
            line("swim n\(from + 1)->n\(to + 1) \(bytes.count) bytes")
        }
    }

    func published(node: Int, _ message: Received) {
        event(2)
        hash.mix(node)
        hash.mix(message.topic)
        hash.mix(message.sequence)
        hash.mix(message.value)
        line("publish n\(node + 1) \(message.topic)#\(message.sequence)=\(message.value)")
    }

    func statusChanged(observer: Int, member: String, status: Peer.MembershipStatus, incarnation: UInt64) {
        event(3)
        hash.mix(observer)
        hash.mix(member)
        hash.mix(status.rawValue)
        hash.mix(incarnation)
        statusChanges.append(StatusChange(at: now(), observer: observer, member: member, status: status, incarnation: incarnation))
        line("status n\(observer + 1) sees \(member) \(status.rawValue) (incarnation \(incarnation))")
    }

    /// Anything else worth replaying: a workload step, an acknowledgement, a fault.
    func note(_ kind: UInt64, node: Int, _ text: String) {
        event(kind)
        hash.mix(node)
        hash.mix(text)
        line("n\(node + 1) \(text)")
    }
}
