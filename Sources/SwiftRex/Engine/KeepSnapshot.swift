/// A point-in-time view of the engine: every live or settling channel, and reconcile counters.
public struct KeepSnapshot: Sendable {
    /// Channels, in the order they were first opened (oldest first).
    public let channels: [KeepEntry]
    /// The engine's counters since the store started.
    public let counters: ReconcileCounters
    /// One-shot effects currently running or waiting (delayed/debounced).
    public let inFlightEffects: Int
    /// Engine timers waiting to fire.
    public let pendingTimers: Int

    /// The entry for `id`, if live or settling.
    public func entry(for id: some Hashable & Sendable) -> KeepEntry? {
        let key = AnyHashableSendable(id)
        return channels.first { $0.id == key }
    }

    /// Ids of channels that are live (not settling).
    public var liveIDs: [AnyHashableSendable] { channels.filter { $0.status == .live }.map(\.id) }
}

/// One channel as the engine sees it.
public struct KeepEntry: Sendable {
    /// Whether a channel's body has run.
    public enum Status: String, Sendable, Codable {
        /// Open: its body ran and its handler receives values.
        case live
        /// Waiting for its settle window before opening; nothing is live.
        case settling
    }

    /// The registry key.
    public let id: AnyHashableSendable
    /// Its lifetime, with the reset key of the current instance.
    public let lifetime: ChannelLifetime
    /// `nothing`, `onChange` or `value` (a pipeable effect).
    public let broadcasting: String
    /// How values into it are paced.
    public let delivery: ChannelDelivery
    /// Live or settling.
    public let status: Status
    /// Whether a supervise owns it (false: opened imperatively with `Effect.open`/`Effect.channel`).
    public let supervised: Bool
    /// When the current instance opened (or began settling), on the store's clock, from its start.
    public let since: Duration
    /// Instances opened under this id (the first and every recreate).
    public let opens: Int
    /// Instances replaced because the reset key changed.
    public let recreates: Int
    /// Values handed to the handler's `receive`.
    public let deliveries: Int
    /// Values not delivered: deduplicated, throttled away, or sent while nothing was live.
    public let drops: Int
    /// Recent lifecycle and delivery events, oldest first.
    public let history: [ChannelEvent]
}

/// Something that happened to a channel id.
public struct ChannelEvent: Sendable {
    /// What happened.
    public enum Kind: Sendable {
        /// An instance opened (its body ran).
        case opened
        /// A reset key changed and the new instance waits for its settle window.
        case settling
        /// The instance was replaced because its reset key changed `from` one value `to` another.
        /// (Indirect: its two keys would make every event, and every history slot, twice as large.)
        indirect case recreated(from: AnyHashableSendable?, to: AnyHashableSendable?)
        /// A value was not delivered, and why.
        case dropped(reason: String)
        /// The instance's cancel ran, and why (left the set, cancelled by id, store released…).
        case cancelled(reason: String)
    }

    /// On the store's clock, from its start.
    public let at: Duration
    /// What happened.
    public let kind: Kind
}

/// Counters of the reconcile engine.
public struct ReconcileCounters: Sendable, Equatable {
    /// Reconcile cycles run (supervise updated after a batch), skipped ones included.
    public var cycles: Int = 0
    /// Cycles in which no supervise input changed (every memo compared equal): nothing was
    /// diffed, the cycle cost the memo comparisons only.
    public var skippedCycles: Int = 0
    /// Channel positions the diff examined, in total (an unmemoised supervise: all of them
    /// every cycle; a memoised one: only the positions its changed inputs declare).
    public var examinedPositions: Int = 0
    /// Cycles that opened, recreated, piped into or cancelled anything.
    public var changedCycles: Int = 0
    /// Channel instances opened (including recreations).
    public var opens: Int = 0
    /// Channel instances cancelled (including recreations).
    public var cancels: Int = 0
    /// Recreations caused by a reset-key change.
    public var recreates: Int = 0
    /// Values delivered into channels.
    public var deliveries: Int = 0
    /// Values dropped (throttled, nothing live, type mismatch).
    public var drops: Int = 0
    /// Wall time of the last cycle: evaluating supervise plus diffing.
    public var lastDuration: Duration = .zero
    /// Longest cycle so far.
    public var maxDuration: Duration = .zero
    /// Wall time spent evaluating supervise (building the desired set), in total.
    public var totalBuildDuration: Duration = .zero
    /// Wall time spent diffing and applying, in total.
    public var totalDiffDuration: Duration = .zero
    /// Every cycle's wall time (build plus diff), for percentiles.
    public var cycleDurations = DurationHistogram()
    /// Opens, cancels and recreates per class of the store's `ChannelClassifier`, in its order
    /// (empty without one).
    public var byClass: [ChannelClassCounters] = []
    /// Live channel instances now (opens − cancels).
    public var liveChannels: Int { opens - cancels }

    /// Counters at zero.
    public init() {}
}
