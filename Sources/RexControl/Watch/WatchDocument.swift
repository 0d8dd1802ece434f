/// One reply of a watch: the first answers the `watch` request with every document it asked
/// for, each later one carries the documents that changed since the one before.
///
/// ```json
/// {"id": "w-1", "ok": true, "result": {"keep": {…}, "leaseMs": 10000, "sequence": 1, "state": {…}}, "v": 1}
/// ```
///
/// Every push echoes the `id` of the `watch` request. `sequence` counts the pushes of one
/// watch from 1, so a client sees that it missed one. `State` is the node's state document: the
/// state of the feature the node runs (a client that does not know it reads a ``JSONValue``).
public struct WatchDocument<State: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var sequence: Int
    /// The lease granted: the watch ends unless renewed within it.
    public var leaseMs: Int
    /// The keep set, when it is watched and (after the first push) changed. Ages (`ageMs`)
    /// alone are no change.
    public var keep: KeepDocument?
    /// The state, when it is watched and (after the first push) changed.
    public var state: State?

    public init(sequence: Int, leaseMs: Int, keep: KeepDocument? = nil, state: State? = nil) {
        self.sequence = sequence
        self.leaseMs = leaseMs
        self.keep = keep
        self.state = state
    }
}

/// The reply to `renew`: how many of this client's watches were renewed (0: they are gone —
/// expired, unwatched or dropped — and the client must watch again).
public struct RenewDocument: Codable, Sendable, Equatable {
    public var renewed: Int

    public init(renewed: Int) { self.renewed = renewed }
}

/// The reply to `unwatch`: how many watches ended.
public struct UnwatchDocument: Codable, Sendable, Equatable {
    public var unwatched: Int

    public init(unwatched: Int) { self.unwatched = unwatched }
}
