import Foundation
import RexControl
import RexFeeds
import RexNode
import SwiftRex

/// Sustained follow-topic changes: node `f` holds 100 follows and changes the topic of all of
/// them, round after round, for a few seconds; node `p` is the peer whose publisher sees the
/// subscriptions. `followSettleMs` is 0, so a change recreates its channel in the batch that
/// reduces it.
///
/// A round is 100 `.follow(name:topic:from:)` actions (one per follow, new topics). The next
/// round starts only once the round counts as done, so no change is coalesced with a later one:
/// - sync `node`: `f`'s state shows the round (its reconcile ran in that batch: the old channel
///   was cancelled, the new one opened);
/// - sync `publisher` (strict, default): in addition, `p`'s publisher has seen every new
///   subscription of the round.
/// The benchmark thread waits for `f`'s round through the store's observer (`StateWatch`), not
/// by spinning, so it takes no CPU from the two nodes while it waits.
/// The rate is changes / time until the last round counted. Then the leak checks: keep-set
/// opens − cancels == live channels, recreates == changes, socket and fd counts back to their
/// values before the churn, and back to their values before the follows after unfollowing all.
enum FollowChurn {
    enum Mode: String { case shared, from }
    enum Sync: String { case node, publisher }

    /// `nodebench churn <shared|from> <seconds> [node|publisher] [follows]`: prints one `CHURN …` line.
    static func run(mode: Mode, seconds: Double, sync: Sync, follows: Int, curve: Bool = false) async throws {
        let settings = NodeSettings(followSettleMs: 0)
        // CURVE mode (`curve` as the last argument): both nodes secured, so every dedicated SUB
        // of a follow `from` p pays a CURVE handshake when it is recreated.
        let keys = curve ? try SecuredPair(names: ("p", "f")) : nil
        var pConfiguration = NodeConfiguration(
            id: "p", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
            logLevel: .warning)
        pConfiguration.security = keys?.security(for: "p", aPub: nil)
        let p = try Node.start(pConfiguration)
        var fConfiguration = NodeConfiguration(
            id: "f", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
            settings: settings, logLevel: .warning)
        fConfiguration.addPeer("p", pub: p.pubEndpoint, membership: p.membershipEndpoint)
        fConfiguration.security = keys?.security(for: "f", aPub: p.pubEndpoint)
        let f = try Node.start(fConfiguration)
        let from: String? = mode == .from ? "p" : nil
        let names = (0..<follows).map { String(format: "f%03d", $0) }
        func topic(_ index: Int, _ round: Int) -> String { "c.\(index).\(round)" }
        let last = names[follows - 1]

        let watch = StateWatch<NodeState>()
        let observation = f.store.observe { watch.observe($0) }
        defer { observation.cancel() }
        // Where a round's time goes: until f's state shows it, then until p's publisher has it.
        var nodeWait: UInt64 = 0
        var publisherWait: UInt64 = 0
        func roundDone(_ round: Int) -> Bool {
            let want = topic(follows - 1, round)
            let start = nowNanoseconds()
            guard watch.wait(until: { $0.follows[last]?.topic == want }, current: { f.state }, timeout: 10) else { return false }
            let reduced = nowNanoseconds()
            nodeWait &+= reduced &- start
            guard sync == .publisher else { return true }
            // Polled on p's reactor while it works: the check builds nothing there.
            let topics = (0..<follows).map { topic($0, round) }
            let seen = waitUntil(timeout: 10, pause: 20) { p.publisherIsSubscribed(toAll: topics) }
            publisherWait &+= nowNanoseconds() &- reduced
            return seen
        }

        guard waitUntil(timeout: 10, pause: 1000, { f.state.peers["p"]?.membership == .alive }) else {
            fail("node f never connected to p")
        }
        usleep(100_000)
        let fds0 = openFileDescriptorCount()
        let sockets0 = f.socketCounts()
        let live0 = await liveChannels(f)

        // Round 0: create the follows.
        for (index, name) in names.enumerated() { f.dispatch(.follow(name: name, topic: topic(index, 0), from: from)) }
        guard roundDone(0) else { fail("the initial follows never reached the publisher") }
        usleep(100_000)
        let fds1 = openFileDescriptorCount()
        let sockets1 = f.socketCounts()
        let keep1 = await f.store.keep().counters

        // Churn.
        var round = 0
        nodeWait = 0
        publisherWait = 0
        let cpu0 = threadCPUSeconds()
        let t0 = nowNanoseconds()
        let budget = UInt64(seconds * 1e9)
        while nowNanoseconds() - t0 < budget {
            round += 1
            for (index, name) in names.enumerated() { f.dispatch(.follow(name: name, topic: topic(index, round), from: from)) }
            guard roundDone(round) else { fail("round \(round) never completed (sync \(sync.rawValue))") }
        }
        let tNode = nowNanoseconds()
        let cpu1 = threadCPUSeconds()
        // Converged: the publisher holds exactly the last round's subscriptions.
        let final = Set((0..<follows).map { topic($0, round) })
        let converged = waitUntil(timeout: 10, pause: 100) { p.publisherSubscriptions() == final }
        let tPub = nowNanoseconds()
        let changes = round * follows
        // CPU per change by thread (f's and p's reactors, libzmq's I/O threads, all of the
        // process): a figure the other load on the machine moves far less than the rate.
        func cpuMicroseconds(_ include: (String) -> Bool) -> Double {
            let spent = cpu1.filter { include($0.key) }.map { $0.value - (cpu0[$0.key] ?? 0) }.reduce(0, +)
            return changes > 0 ? 1e6 * spent / Double(changes) : 0
        }
        let cpuF = cpuMicroseconds { $0 == "rexnode-f" }
        let cpuP = cpuMicroseconds { $0 == "rexnode-p" }
        let cpuIO = cpuMicroseconds { $0.hasPrefix("ZMQbg") }
        let cpuAll = cpuMicroseconds { _ in true }
        let secondsNode = Double(tNode - t0) / 1e9
        let secondsPub = Double(tPub - t0) / 1e9

        // Leak checks after the churn (100 follows still live).
        let keep2 = await f.store.keep()
        let live2 = keep2.channels.filter { $0.status == .live }.count
        let sockets2 = f.socketCounts()
        let fdsEqual = waitUntil(timeout: 2, pause: 1000) { openFileDescriptorCount() == fds1 }
        let fds2 = openFileDescriptorCount()
        let recreates = keep2.counters.recreates - keep1.recreates

        // Unfollow all: back to the values before the follows.
        for name in names { f.dispatch(.unfollow(name: name)) }
        _ = waitUntil(timeout: 10) { f.state.follows.isEmpty }
        let emptied = waitUntil(timeout: 10, pause: 1000) { p.publisherSubscriptions().isEmpty }
        let keep3 = await f.store.keep()
        let live3 = keep3.channels.filter { $0.status == .live }.count
        let sockets3 = f.socketCounts()
        _ = waitUntil(timeout: 2, pause: 1000) { openFileDescriptorCount() == fds0 }
        let fds3 = openFileDescriptorCount()

        let leakFree =
            keep2.counters.liveChannels == live2 && keep3.counters.liveChannels == live3 && live3 == live0
            && sockets2 == sockets1 && sockets3.open == sockets0.open && sockets3.sharedSubscriptions == sockets0.sharedSubscriptions
            && fdsEqual && fds3 == fds0 && converged && emptied && recreates == changes
        emit(
            String(
                format: "CHURN mode=%@ sync=%@ follows=%d rounds=%d changes=%d secs=%.3f changes_s=%.0f node_changes_s=%.0f "
                    + "recreates=%d converged=%d leak_free=%d opens_minus_cancels=%d live=%d opens_minus_cancels_after_unfollow=%d live_after_unfollow=%d "
                    + "live_before=%d sockets=%d/%d/%d/%d shared_subs=%d/%d/%d/%d fds=%d/%d/%d/%d reconcile_cycles=%d reconcile_total_ms=%.1f "
                    + "cpu_us_per_change=%.2f f_cpu_us=%.2f p_cpu_us=%.2f io_cpu_us=%.2f round_node_wait_us=%.1f round_publisher_wait_us=%.1f",
                mode.rawValue, sync.rawValue, follows, round, changes, secondsPub, Double(changes) / secondsPub,
                Double(changes) / secondsNode,
                recreates, converged ? 1 : 0, leakFree ? 1 : 0, keep2.counters.liveChannels, live2, keep3.counters.liveChannels, live3,
                live0,
                sockets0.open, sockets1.open, sockets2.open, sockets3.open,
                sockets0.sharedSubscriptions, sockets1.sharedSubscriptions, sockets2.sharedSubscriptions, sockets3.sharedSubscriptions,
                fds0, fds1, fds2, fds3, keep2.counters.cycles - keep1.cycles,
                Double(
                    (keep2.counters.totalBuildDuration + keep2.counters.totalDiffDuration - keep1.totalBuildDuration
                        - keep1.totalDiffDuration)
                        .components.attoseconds) / 1e15
                    + Double(
                        (keep2.counters.totalBuildDuration + keep2.counters.totalDiffDuration - keep1.totalBuildDuration
                            - keep1.totalDiffDuration)
                            .components.seconds) * 1000,
                cpuAll, cpuF, cpuP, cpuIO, round > 0 ? Double(nodeWait) / Double(round) / 1e3 : 0.0,
                round > 0 ? Double(publisherWait) / Double(round) / 1e3 : 0.0))
        await f.stop()
        await p.stop()
    }

    private static func liveChannels(_ node: Node) async -> Int {
        await node.store.keep().channels.filter { $0.status == .live }.count
    }
}
