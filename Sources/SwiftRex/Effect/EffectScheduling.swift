/// How the engine runs one effect component: now, keyed, after a delay, or paced under an id.
///
/// The knobs are independent. An `id` puts the run in the store's registry, where a later run
/// under the same id, a `cancel(id:)`, or the store's release can reach it. Ids are type-aware:
/// `1`, `1.0`, `"1"` and same-named cases of two enums are four different ids.
public struct EffectScheduling: Sendable, Equatable {
    /// How arrivals under one id are coalesced.
    public enum Coalesce: Sendable, Equatable {
        /// Trailing edge: every arrival restarts the wait; only the latest runs.
        case debounce(Duration)
        /// Leading edge: the first arrival runs; arrivals inside the window are dropped.
        case throttle(Duration)
    }

    /// The registry key; `nil` runs anonymously (cannot be cancelled by id).
    public var id: AnyHashableSendable?
    /// A fixed wait before the run starts (negative values count as zero).
    public var delay: Duration?
    /// Debounce or throttle under `id`.
    public var coalesce: Coalesce?
    /// Cancel whatever runs under `id` before starting this one.
    public var exclusive: Bool
    /// A sentinel that only cancels what runs under `id`.
    public internal(set) var cancelsOnly: Bool {
        get { storedCancelsOnly }
        set { storedCancelsOnly = newValue }
    }
    @usableFromInline var storedCancelsOnly: Bool

    /// A policy from its parts; the static factories (``immediately``, ``debounce(id:delay:)``, …)
    /// build the combinations that make sense.
    @inlinable
    public init(
        id: AnyHashableSendable? = nil,
        delay: Duration? = nil,
        coalesce: Coalesce? = nil,
        exclusive: Bool = false
    ) {
        self.id = id
        self.delay = delay
        self.coalesce = coalesce
        self.exclusive = exclusive
        self.storedCancelsOnly = false
    }

    /// Run at once, anonymously.
    public static var immediately: EffectScheduling { EffectScheduling() }

    /// Run at once under `id`; a later run under the same id replaces this one.
    public static func keyed(id: some Hashable & Sendable) -> EffectScheduling {
        EffectScheduling(id: AnyHashableSendable(id))
    }

    /// Cancel the run under `id`, then start this one.
    public static func replacing(id: some Hashable & Sendable) -> EffectScheduling {
        EffectScheduling(id: AnyHashableSendable(id), exclusive: true)
    }

    /// Start only after `delay` without a newer arrival under `id` (trailing edge).
    public static func debounce(id: some Hashable & Sendable, delay: Duration) -> EffectScheduling {
        EffectScheduling(id: AnyHashableSendable(id), coalesce: .debounce(delay))
    }

    /// Start at most once per `interval` under `id` (leading edge; arrivals in the window drop).
    public static func throttle(id: some Hashable & Sendable, interval: Duration) -> EffectScheduling {
        EffectScheduling(id: AnyHashableSendable(id), coalesce: .throttle(interval))
    }

    /// Cancel whatever runs under `id` and start nothing.
    public static func cancelInFlight(id: some Hashable & Sendable) -> EffectScheduling {
        var scheduling = EffectScheduling(id: AnyHashableSendable(id))
        scheduling.cancelsOnly = true
        return scheduling
    }

    /// A copy that waits `delay` before starting.
    public func delayed(by delay: Duration) -> EffectScheduling {
        var copy = self
        copy.delay = delay
        return copy
    }
}

extension Duration {
    /// This duration, or zero when negative: bad input clamps instead of trapping.
    var clampedToZero: Duration { self < .zero ? .zero : self }
}
