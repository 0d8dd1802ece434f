/// What the registry holds under one id: one run at a time.
enum EngineSlot<Action: Sendable> {
    /// A one-shot effect that is running.
    case effect(RunningEffect)
    /// A one-shot effect waiting for its delay or debounce.
    case pending(PendingEffect<Action>)
    /// A live channel instance.
    case channel(LiveChannel)
    /// A channel waiting for its settle window to open.
    case settling(SettlingChannel<Action>)
}

/// An `EngineSlot` as the registry stores it: the generic classes held as `AnyObject`, so the
/// registry's arrays are of one concrete type whatever the store's action type.
enum StoredEngineSlot {
    case effect(RunningEffect)
    /// A `PendingEffect<Action>`.
    case pending(AnyObject)
    case channel(LiveChannel)
    /// A `SettlingChannel<Action>`.
    case settling(AnyObject)

    @inline(__always)
    init<Action>(_ slot: EngineSlot<Action>) {
        switch slot {
        case .effect(let run): self = .effect(run)
        case .pending(let pending): self = .pending(pending)
        case .channel(let live): self = .channel(live)
        case .settling(let settling): self = .settling(settling)
        }
    }

    /// The slot again, for the action type it was stored with (a registry holds one action
    /// type only, so the downcasts cannot fail).
    @inline(__always)
    func typed<Action>() -> EngineSlot<Action> {
        switch self {
        case .effect(let run): .effect(run)
        case .pending(let pending): .pending(unsafeDowncast(pending, to: PendingEffect<Action>.self))
        case .channel(let live): .channel(live)
        case .settling(let settling): .settling(unsafeDowncast(settling, to: SettlingChannel<Action>.self))
        }
    }
}

final class RunningEffect {
    let generation: UInt64
    let liveness = Liveness()
    var token: SubscriptionToken?

    init(generation: UInt64) { self.generation = generation }
}

final class PendingEffect<Action: Sendable> {
    let generation: UInt64
    let subscribe: @Sendable (_ send: @escaping Effect<Action>.Send, _ complete: @escaping Effect<Action>.Complete) -> SubscriptionToken

    init(
        generation: UInt64,
        subscribe:
            @escaping @Sendable (_ send: @escaping Effect<Action>.Send, _ complete: @escaping Effect<Action>.Complete) -> SubscriptionToken
    ) {
        self.generation = generation
        self.subscribe = subscribe
    }
}

/// One open channel instance and its per-instance delivery state.
///
/// Kept small (one allocation per live channel, 100,000s of them in a node): the delivery policy
/// lives in the pacer box (absent for immediate channels) and the payload kind is one byte; the
/// ordering of the stored properties packs the small fields together.
@usableFromInline
final class LiveChannel {
    let generation: UInt64
    let order: UInt64
    @usableFromInline let liveness = Liveness()
    /// Pacing state of a throttled or debounced instance (nil: immediate). Boxed, so an
    /// immediate instance (most of them) pays one pointer for it.
    @usableFromInline let pacing: Pacing?
    @usableFromInline let stats: ChannelStats
    // Unchecked exclusivity: read per delivered value on the store's executor and written once,
    // at open, after the body returned (no access is open while the body runs).
    @usableFromInline @exclusivity(unchecked) var handler: ErasedChannelHandler?
    let since: Duration
    let lifetime: ChannelLifetime
    let payloadKind: ChannelPayload.Kind
    var supervised: Bool
    /// Its class under the store's `ChannelClassifier` (set at open; unclassified without one).
    var classIndex = ChannelClassifier.unclassified

    /// How values into it are paced.
    var delivery: ChannelDelivery { pacing?.delivery ?? .immediate }
    /// `nothing`, `onChange` or `value`.
    var broadcasting: String { payloadKind.name }

    init(
        generation: UInt64, lifetime: ChannelLifetime, delivery: ChannelDelivery, payloadKind: ChannelPayload.Kind,
        stats: ChannelStats, order: UInt64, since: Duration, supervised: Bool
    ) {
        self.generation = generation
        self.lifetime = lifetime
        self.pacing = DeliveryPacer(delivery).map { Pacing($0, delivery: delivery) }
        self.payloadKind = payloadKind
        self.stats = stats
        self.order = order
        self.since = since
        self.supervised = supervised
    }
}

final class SettlingChannel<Action: Sendable> {
    let generation: UInt64
    /// The latest declaration; the open uses it.
    var channel: Channel<Action>
    let stats: ChannelStats
    let order: UInt64
    let since: Duration
    var supervised: Bool

    init(generation: UInt64, channel: Channel<Action>, stats: ChannelStats, order: UInt64, since: Duration, supervised: Bool) {
        self.generation = generation
        self.channel = channel
        self.stats = stats
        self.order = order
        self.since = since
        self.supervised = supervised
    }
}

/// A live instance's pacer, kept apart from the instance so immediate instances do not carry it.
@usableFromInline
final class Pacing {
    var pacer: DeliveryPacer
    /// The policy the pacer runs (what the instance reports).
    let delivery: ChannelDelivery

    init(_ pacer: DeliveryPacer, delivery: ChannelDelivery) {
        self.pacer = pacer
        self.delivery = delivery
    }
}
