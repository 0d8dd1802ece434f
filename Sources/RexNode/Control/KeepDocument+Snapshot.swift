import RexCluster
import RexControl
import SwiftRex

extension KeepDocument {
    /// The keep document of an engine snapshot; ages are measured to `nowMs` (ms since start).
    init(_ snapshot: KeepSnapshot, nowMs: Int) {
        self.init(channels: snapshot.channels.map { Channel($0, nowMs: nowMs) }, counters: Counters(snapshot.counters))
    }
}

extension KeepDocument.Channel {
    init(_ entry: KeepEntry, nowMs: Int) {
        let sinceMs = entry.since.wholeMilliseconds
        self.init(
            id: "\(entry.id)",
            lifetime: entry.lifetime.isPermanent ? .permanent : .ephemeral,
            resetKey: entry.lifetime.resetKey.map { "\($0)" },
            settleMs: entry.lifetime.settle?.milliseconds,
            broadcasting: entry.broadcasting,
            delivery: Self.delivery(entry.delivery),
            status: entry.status == .live ? .live : .settling,
            supervised: entry.supervised,
            sinceMs: sinceMs,
            ageMs: max(0, nowMs - sinceMs),
            opens: entry.opens, recreates: entry.recreates, deliveries: entry.deliveries, drops: entry.drops,
            history: entry.history.map(ChannelEvent.init)
        )
    }

    /// `immediate`, `throttle(100ms, latest)`, `debounce(50ms)`.
    static func delivery(_ delivery: ChannelDelivery) -> String {
        switch delivery {
        case .immediate: "immediate"
        case .throttle(let interval, let latest): "throttle(\(interval.wholeMilliseconds)ms\(latest ? ", latest" : ""))"
        case .debounce(let quiet): "debounce(\(quiet.wholeMilliseconds)ms)"
        }
    }
}

extension KeepDocument.Counters {
    init(_ counters: ReconcileCounters) {
        self.init(
            cycles: counters.cycles, changedCycles: counters.changedCycles, opens: counters.opens, cancels: counters.cancels,
            recreates: counters.recreates, deliveries: counters.deliveries, drops: counters.drops,
            live: counters.liveChannels, lastMs: counters.lastDuration.milliseconds, maxMs: counters.maxDuration.milliseconds
        )
    }
}

extension RexControl.ChannelEvent {
    init(_ event: SwiftRex.ChannelEvent) {
        let kind: Kind =
            switch event.kind {
            case .opened: .opened
            case .settling: .settling
            case .recreated(let from, let to): .recreated(from: from.map { "\($0)" }, to: to.map { "\($0)" })
            case .dropped(let reason): .dropped(reason: reason)
            case .cancelled(let reason): .cancelled(reason: reason)
            }
        self.init(atMs: event.at.wholeMilliseconds, kind)
    }
}
