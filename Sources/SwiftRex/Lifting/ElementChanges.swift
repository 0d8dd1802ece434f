/// Which elements of a collection changed, as the reducer records them, so that
/// `liftCollection(…, changes:)` re-evaluates only those elements: a churn cycle then costs
/// O(changes) instead of a walk over every element.
///
/// The contract, which the lift relies on to never serve a stale channel: in every batch, record
/// the id of every element that was added, removed, moved on purpose (swapped, sorted), or
/// changed in anything its supervise reads. Elements that only shift because another one was
/// inserted or removed need not be recorded: the lift notices the shift and walks. Ids must be
/// unique in the collection. Recording more than needed is harmless (one memo comparison per
/// id); an element left out keeps its old channels.
///
/// The log is bounded: it holds at least the last `capacity` ids. A store that fell further
/// behind (more changes in one batch than that) walks every element once, as without a log.
public struct ElementChanges<ID: Hashable & Sendable>: ElementChangeLog, Equatable {
    /// Bumped by every `record`; a supervise that saw this revision has nothing to do.
    public private(set) var revision: UInt64 = 0
    /// The ids recorded at revisions `revision - log.count + 1 … revision`, oldest first.
    private var log: [ID] = []
    /// How many of the latest ids the log keeps at least (it keeps at most twice as many).
    public let capacity: Int

    /// An empty log that keeps at least the last `capacity` ids (at least 1).
    public init(capacity: Int = 4_096) {
        self.capacity = max(capacity, 1)
    }

    /// Records that the element with `id` was added, removed, moved, or changed in what its
    /// supervise reads.
    public mutating func record(_ id: ID) {
        if log.count >= 2 * capacity { log.removeFirst(log.count - capacity) }
        log.append(id)
        revision &+= 1
    }

    /// The ids recorded after revision `seen`, or nil when some of them left the log (or `seen`
    /// is not a revision of this log).
    public func ids(after seen: UInt64) -> ArraySlice<ID>? {
        guard seen <= revision else { return nil }
        let missing = revision - seen
        guard missing <= UInt64(log.count) else { return nil }
        return log[(log.count - Int(missing))...]
    }
}

/// A log of changed keys as the keyed lift reads it (`ElementChanges` is one): for a state type
/// that cannot depend on this module, a log of its own that follows the same contract.
public protocol ElementChangeLog<ID>: Sendable {
    /// The key of an element: a dictionary key, or an element's id.
    associatedtype ID: Hashable & Sendable
    /// Bumped by every recorded id; a supervise that saw this revision has nothing to do.
    var revision: UInt64 { get }
    /// The ids recorded after revision `seen`, oldest first, or nil when some of them left the
    /// log (or `seen` is not a revision of this log).
    func ids(after seen: UInt64) -> ArraySlice<ID>?
}
