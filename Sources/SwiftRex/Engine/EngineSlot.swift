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
        subscribe: @escaping @Sendable (_ send: @escaping Effect<Action>.Send, _ complete: @escaping Effect<Action>.Complete) -> SubscriptionToken
    ) {
        self.generation = generation
        self.subscribe = subscribe
    }
}

/// One open channel instance and its per-instance delivery state.
final class LiveChannel {
    let generation: UInt64
    let liveness = Liveness()
    let lifetime: ChannelLifetime
    let delivery: ChannelDelivery
    let broadcasting: String
    /// Pacing state of a throttled or debounced instance (nil: immediate). Boxed, so an
    /// immediate instance (most of them) pays one pointer for it.
    let pacing: Pacing?
    let stats: ChannelStats
    let order: UInt64
    let since: Duration
    var supervised: Bool
    var handler: ErasedChannelHandler?

    init(
        generation: UInt64, lifetime: ChannelLifetime, delivery: ChannelDelivery, broadcasting: String,
        stats: ChannelStats, order: UInt64, since: Duration, supervised: Bool
    ) {
        self.generation = generation
        self.lifetime = lifetime
        self.delivery = delivery
        self.pacing = DeliveryPacer(delivery).map(Pacing.init)
        self.broadcasting = broadcasting
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
final class Pacing {
    var pacer: DeliveryPacer

    init(_ pacer: DeliveryPacer) { self.pacer = pacer }
}
