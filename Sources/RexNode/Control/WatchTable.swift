import RexCluster
import RexControl

/// The node's watchers as a pure state machine: who watches what, until when, and what each
/// has been sent. No sockets, no clock of its own: ``ControlWatchers`` feeds it events with the
/// time, and carries out what it answers.
///
/// Documents are built in numbered rounds (``ControlWatchers`` builds the watched documents
/// once for every watcher). A watcher joining before round `n` starts gets, after round `n`,
/// every document it watches; after that, a document whenever a round changed it. A watcher
/// is pushed at most once per ``WatchPolicy/pushIntervalMs``: changes in between coalesce.
struct WatchTable {
    /// A watch is one client connection (its ROUTER envelope) and the id of its `watch` request.
    struct Key: Hashable, Sendable {
        let envelope: [[UInt8]]
        let id: JSONValue
    }

    struct Watcher {
        let documents: Set<WatchedDocument>
        let leaseMs: Int
        var expiresAt: ContinuousClock.Instant
        /// Rounds started before the watcher joined; its first push comes from a later one.
        let joinedAfterRound: Int
        /// The round its last push came from (nil: none yet).
        var pushedRound: Int?
        var sequence = 0
        var lastPushAt: ContinuousClock.Instant?
    }

    /// What one push carries.
    struct Push: Equatable {
        let key: Key
        let sequence: Int
        let leaseMs: Int
        let documents: Set<WatchedDocument>
    }

    private(set) var watchers: [Key: Watcher] = [:]
    /// Rounds started so far.
    private(set) var roundsStarted = 0
    /// The last round finished, and the round that last changed each document.
    private(set) var finishedRound = 0
    private var changedInRound: [WatchedDocument: Int] = [:]

    var isEmpty: Bool { watchers.isEmpty }

    /// Every document someone watches.
    var watched: Set<WatchedDocument> { watchers.values.reduce(into: []) { $0.formUnion($1.documents) } }

    /// Whether a watcher waits for its first push (a round must start for it).
    var hasNewcomers: Bool { watchers.values.contains { $0.pushedRound == nil && $0.joinedAfterRound >= roundsStarted } }

    // MARK: events

    /// A `watch` request: adds the watcher, or replaces the one with the same key (a client
    /// watching again starts over, with a full first push).
    mutating func watch(_ key: Key, documents: [WatchedDocument], leaseMs: Int, now: ContinuousClock.Instant)
        throws(ControlError)
    {
        guard watchers[key] != nil || watchers.count < WatchPolicy.maxWatchers else {
            throw ControlError(
                .limitReached,
                "this node serves \(WatchPolicy.maxWatchers) watches, its limit; "
                    + "unwatch one, or let a lease run out")
        }
        watchers[key] = Watcher(
            documents: Set(documents), leaseMs: leaseMs, expiresAt: now.advanced(by: .milliseconds(leaseMs)),
            joinedAfterRound: roundsStarted)
    }

    /// A `renew`: extends the lease of the client's watch `id` (every watch of the client when
    /// nil). Returns how many were renewed.
    mutating func renew(envelope: [[UInt8]], id: JSONValue?, now: ContinuousClock.Instant) -> Int {
        var renewed = 0
        for key in keys(envelope: envelope, id: id) {
            guard var watcher = watchers[key] else { continue }
            watcher.expiresAt = now.advanced(by: .milliseconds(watcher.leaseMs))
            watchers[key] = watcher
            renewed += 1
        }
        return renewed
    }

    /// An `unwatch`: ends the client's watch `id` (every watch of the client when nil).
    mutating func unwatch(envelope: [[UInt8]], id: JSONValue?) -> Int {
        let ended = keys(envelope: envelope, id: id)
        for key in ended { watchers[key] = nil }
        return ended.count
    }

    /// Ends the watches whose lease passed; returns them.
    mutating func expire(now: ContinuousClock.Instant) -> [Key] {
        let expired = watchers.filter { $0.value.expiresAt <= now }.map(\.key)
        for key in expired { watchers[key] = nil }
        return expired
    }

    /// Ends one watch (its client could not take a push).
    mutating func drop(_ key: Key) {
        watchers[key] = nil
    }

    /// A round of building starts; returns its number.
    mutating func startRound() -> Int {
        roundsStarted += 1
        return roundsStarted
    }

    /// A round finished; `changed` are the documents that differ from the round before.
    mutating func finishRound(_ round: Int, changed: Set<WatchedDocument>) {
        finishedRound = max(finishedRound, round)
        for document in changed { changedInRound[document] = round }
    }

    /// The pushes due now, in no particular order. Each is the watcher's first (every
    /// document it watches), or carries the documents a finished round changed since its last
    /// push; none comes sooner than ``WatchPolicy/pushIntervalMs`` after the one before.
    func duePushes(now: ContinuousClock.Instant) -> [Push] {
        watchers.compactMap { key, watcher in
            if let last = watcher.lastPushAt, now < last.advanced(by: .milliseconds(WatchPolicy.pushIntervalMs)) { return nil }
            let documents: Set<WatchedDocument>
            if let pushed = watcher.pushedRound {
                documents = watcher.documents.filter { (changedInRound[$0] ?? 0) > pushed }
            } else {
                guard finishedRound > watcher.joinedAfterRound else { return nil }
                documents = watcher.documents
            }
            guard !documents.isEmpty else { return nil }
            return Push(key: key, sequence: watcher.sequence + 1, leaseMs: watcher.leaseMs, documents: documents)
        }
    }

    /// A push went out.
    mutating func pushed(_ push: Push, now: ContinuousClock.Instant) {
        guard watchers[push.key] != nil else { return }
        watchers[push.key]?.sequence = push.sequence
        watchers[push.key]?.pushedRound = finishedRound
        watchers[push.key]?.lastPushAt = now
    }

    /// When a coalesced push becomes due at the earliest, if one waits.
    func nextPushAt(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        watchers.values.compactMap { $0.lastPushAt?.advanced(by: .milliseconds(WatchPolicy.pushIntervalMs)) }.filter { $0 > now }.min()
    }

    private func keys(envelope: [[UInt8]], id: JSONValue?) -> [Key] {
        if let id { return watchers[Key(envelope: envelope, id: id)] != nil ? [Key(envelope: envelope, id: id)] : [] }
        return watchers.keys.filter { $0.envelope == envelope }
    }
}
