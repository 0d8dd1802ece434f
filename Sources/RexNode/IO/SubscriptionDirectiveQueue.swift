import RexCluster

/// The shared subscriber's subscribe and unsubscribe directives, held back and handed to libzmq
/// a few dozen at a time, in order.
///
/// Why: a SUB socket writes every subscription to its pipes and flushes it at once, and libzmq
/// wakes its I/O thread whenever that thread had caught up (an eventfd write here, a wake-up
/// there). A follow-topic change is four directives spaced by the engine's recreate, so the I/O
/// thread caught up after each one: one wake-up, one TCP send, and on the peer one read and one
/// wake-up of its reactor per subscription frame. Handed over back to back, the frames of many
/// changes share each of those. The queue is flushed when it holds `batch` directives (so the
/// peer starts on them while this node still reconciles) and at the end of every reactor turn,
/// so nothing waits longer than the turn that made it. Order is kept, which is all libzmq's
/// reference counts and the snapshot request's order (after its pattern) need.
///
/// Layout: every directive's bytes back to back in one reused buffer, and per directive its kind
/// and where its bytes end; nothing is allocated once both have grown to a turn's worth.
struct SubscriptionDirectiveQueue {
    typealias Kind = SubscriptionTable<RouteTarget>.DirectiveKind

    /// Directives held at most before they are handed over.
    static let batch = 128

    private var bytes: [UInt8] = []
    private var directives: [(kind: Kind, end: Int)] = []

    /// Directives waiting.
    var count: Int { directives.count }

    /// The most directives ever waiting at once: what the holder's flushes bound (at most
    /// `batch` plus one add's worth), checked by the tests.
    private(set) var largestCount = 0

    var isEmpty: Bool { directives.isEmpty }

    /// Whether the queue holds a full batch (time to hand it over).
    var isFull: Bool { directives.count >= Self.batch }

    /// Queues one directive (its bytes are copied).
    mutating func append(_ kind: Kind, _ directive: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: directive)
        directives.append((kind, bytes.count))
        largestCount = max(largestCount, directives.count)
    }

    /// Calls `apply` with each directive, oldest first, then empties the queue (keeping its
    /// capacity). The bytes are valid only during the call.
    mutating func drain(_ apply: (Kind, UnsafeRawBufferPointer) -> Void) {
        guard !directives.isEmpty else { return }
        bytes.withUnsafeBytes { all in
            var start = 0
            for directive in directives {
                apply(directive.kind, UnsafeRawBufferPointer(rebasing: all[start..<directive.end]))
                start = directive.end
            }
        }
        bytes.removeAll(keepingCapacity: true)
        directives.removeAll(keepingCapacity: true)
    }
}
