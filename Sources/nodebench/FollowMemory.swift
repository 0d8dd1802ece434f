import CGlibcMalloc
import Foundation
import RexControl
import RexFeeds
import RexNode
import SwiftRex
import ZMQ

/// Where a follow's memory goes, part by part, in this one process: heap bytes in use (glibc's
/// `mallinfo2`, every arena, mmapped blocks included) before and after each part is built with F
/// follows named `hv<i>` on topics `hv.<i>`, as the e2e follow flood sends them.
///
/// - state: `NodeState.follows` and the change log, built in a plain variable;
/// - libzmq: a SUB socket holding the shared subscriber's two subscriptions per follow (its
///   topic and its snapshot request), no peer connected;
/// - node, waiting: a node given F follows `from` a peer it does not know, so no follow has a
///   channel yet: state, change log and the keyed supervise's part per follow;
/// - node, live: a node given F follows on its shared socket, every channel live.
/// The rows in between are differences of these readings. Prints a table and one `MEMORY …` line.
enum FollowMemory {
    static func heapInUse() -> Int {
        let info = mallinfo2()
        return Int(clamping: info.uordblks) &+ Int(clamping: info.hblkhd)
    }

    static func name(_ index: Int) -> String { "hv\(index)" }
    static func topic(_ index: Int) -> String { "hv.\(index)" }

    /// `nodebench memory <follows>`.
    static func run(follows: Int) async throws {
        let state = measureState(follows)
        let zmq = try measureSubscriptions(follows)
        let waiting = try await measureNode(follows, from: "nobody")
        let live = try await measureNode(follows, from: nil)
        let perFollow = { (bytes: Int) in Double(bytes) / Double(follows) }
        let rows: [(String, Int)] = [
            ("state: follows dictionary + change log", state),
            ("keyed supervise: a part per follow (node waiting − state)", waiting.heap - state),
            ("channel: engine + route + closures (node live − waiting − libzmq)", live.heap - waiting.heap - zmq),
            ("libzmq SUB: topic + snapshot request per follow", zmq),
            ("node, every follow live (heap)", live.heap),
            ("node, every follow live (RSS growth)", live.rss),
        ]
        note("  memory per follow, F = \(follows) (heap in use from mallinfo2; the node rows are whole-node growths)")
        for (label, bytes) in rows {
            let padded = label.padding(toLength: 70, withPad: " ", startingAt: 0)
            note(padded + String(format: " %6.0f B/follow %7.1f MiB", perFollow(bytes), Double(bytes) / 1_048_576))
        }
        emit(
            String(
                format:
                    "MEMORY follows=%d state_b=%.0f supervise_b=%.0f channel_b=%.0f zmq_b=%.0f node_heap_b=%.0f node_rss_b=%.0f waiting_heap_b=%.0f",
                follows, perFollow(state), perFollow(waiting.heap - state), perFollow(live.heap - waiting.heap - zmq), perFollow(zmq),
                perFollow(live.heap), perFollow(live.rss), perFollow(waiting.heap)))
    }

    /// The state's follows and change log, recorded as the reducer records a new follow.
    private static func measureState(_ follows: Int) -> Int {
        let before = heapInUse()
        var state = NodeState(id: "f")
        for index in 0..<follows {
            state.follows[name(index)] = Follow(topic: topic(index))
            state.revisions.followChanges.record(name(index))
        }
        let after = heapInUse()
        withExtendedLifetime(state) {}
        return after - before
    }

    /// One SUB socket subscribed as the shared subscriber subscribes F follows with snapshots.
    private static func measureSubscriptions(_ follows: Int) throws -> Int {
        let context = try ZMQContext()
        let socket = try context.socket(.sub)
        defer {
            socket.close()
            try? context.terminate(timeout: .seconds(2))
        }
        let before = heapInUse()
        for index in 0..<follows {
            let subscription = Array(topic(index).utf8) + [0]
            try socket.subscribe(subscription)
            try socket.subscribe(Array("$snap.1234567890.\(index + 10)".utf8) + [0] + subscription)
        }
        return heapInUse() - before
    }

    /// A node's growth from F follows: heap in use and RSS (after `malloc_trim`), from the node
    /// started and idle to every follow in its state (and, on the shared socket, every channel live).
    private static func measureNode(_ follows: Int, from: String?) async throws -> (heap: Int, rss: Int) {
        let node = try Node.start(
            NodeConfiguration(
                id: "f", pubEndpoint: "tcp://127.0.0.1:*", controlEndpoint: "tcp://127.0.0.1:*", membershipEndpoint: "tcp://127.0.0.1:*",
                logLevel: .warning))
        let expected = await node.store.keep().counters.liveChannels + (from == nil ? follows : 0)
        try await Task.sleep(for: .milliseconds(200))
        _ = malloc_trim(0)
        let heap0 = heapInUse(), rss0 = residentBytes()
        for index in 0..<follows { node.dispatch(.follow(name: name(index), topic: topic(index), from: from)) }
        let deadline = nowNanoseconds() + 100_000_000_000
        while nowNanoseconds() < deadline {
            if node.state.follows.count == follows, await node.store.keep().counters.liveChannels == expected { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        guard node.state.follows.count == follows else { fail("the node holds \(node.state.follows.count) of \(follows) follows") }
        try await Task.sleep(for: .milliseconds(200))
        _ = malloc_trim(0)
        let grown = (heapInUse() - heap0, residentBytes() - rss0)
        await node.stop()
        return grown
    }

    /// Resident set size, from `/proc/self/statm`.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
