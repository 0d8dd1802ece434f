import RexFeeds
import SwiftRex

/// The engine's keep set against its own counters and against the network: on each sample, for
/// every running node, opens − cancels equals the live channels the keep set lists, the live
/// follow channels equal the routes the node's sockets hold, and the live peer channels equal
/// its shared socket's connections.
final class KeepSetChecker: @unchecked Sendable {
    // @unchecked Sendable: used only on the loop's thread (the samples are tasks the loop runs).
    private(set) var samples = 0
    private(set) var violations: [Violation] = []

    /// Samples `process` of node `id` (its answer arrives as the loop runs on).
    func sample(_ process: SimProcess<NodeFeature>, node id: String, at time: Duration) {
        let store = process.store
        let transport = process.transport
        Task {
            let keep = await store.keep()
            self.check(keep, transport: transport, node: id, at: time)
        }
    }

    private func check(_ keep: KeepSnapshot, transport: SimTransport, node id: String, at time: Duration) {
        guard transport.alive else { return }
        samples += 1
        let live = keep.channels.filter { $0.status == .live }
        let counted = keep.counters.opens - keep.counters.cancels
        if counted != live.count {
            violations.append(
                Violation(checker: "keep-set", message: "\(id) at \(time): opens − cancels = \(counted), \(live.count) live channels"))
        }
        let follows = live.filter { ChannelKind(id: $0.id) == .follow }.count
        if follows != transport.routeCount {
            violations.append(
                Violation(checker: "keep-set", message: "\(id) at \(time): \(follows) live follow channels, \(transport.routeCount) routes")
            )
        }
        let peers = live.filter { ChannelKind(id: $0.id) == .peer }.count
        if peers != transport.sharedConnectionCount {
            violations.append(
                Violation(
                    checker: "keep-set",
                    message: "\(id) at \(time): \(peers) live peer channels, \(transport.sharedConnectionCount) connections"))
        }
    }
}
