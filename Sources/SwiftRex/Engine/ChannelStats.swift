/// Per-id counters and a short history, kept across recreations of the same id.
///
/// One allocation of fixed size per id, history included: the 8 events are 16 bytes each in an
/// inline ring (time in nanoseconds, kind, reason code or key indices). The reset keys that
/// recreations name live in one small array allocated at the first recreate, each key once: a
/// recreation's `from` is the previous one's `to`, so 4 recreations in the window need 5 keys.
/// The history used to be an array of public `ChannelEvent`s (40 bytes each) that grew 1 → 2 →
/// 4 → 8, each recreation's keys in a box of their own; the freed smaller arrays stayed behind
/// as holes between live objects, so a store whose channels had churned held ~1.6 KiB per
/// channel.
@usableFromInline
final class ChannelStats {
    /// Lifecycle events and drops only (deliveries are counted, not logged), so the ring holds
    /// what explains a channel: opens, recreates with their keys, drops and cancels.
    static let historyLimit = 8
    /// Keys reserved at the first recreate (a chain of 4 recreations in the window).
    static let reservedKeys = 5

    // Unchecked exclusivity (every `var` here): used on the store's executor only, and every
    // method is a leaf that calls nothing while it reads or writes a property, so no two accesses
    // overlap. The dynamic checks cost a TLS lookup per access, 4-6 accesses per logged event.
    /// Instances opened under this id (saturates at `UInt32.max`).
    @exclusivity(unchecked) private var openCount: UInt32 = 0
    /// Recreations (saturates at `UInt32.max`).
    @exclusivity(unchecked) private var recreateCount: UInt32 = 0
    // Unchecked exclusivity: incremented per delivered value on the store's executor, a leaf
    // access that calls nothing, so no other access can overlap it.
    @usableFromInline @exclusivity(unchecked) var deliveries = 0
    @exclusivity(unchecked) var drops = 0
    @exclusivity(unchecked) private var events = InlineArray<8, StoredEvent>(
        repeating: StoredEvent(nanoseconds: 0, kind: .opened, detail: 0, extra: 0))
    /// Reset keys named by the recreations in the window (a slot no event names is reused).
    @exclusivity(unchecked) private var keys: [AnyHashableSendable?] = []
    @exclusivity(unchecked) private var first: UInt8 = 0
    @exclusivity(unchecked) private var count: UInt8 = 0
    /// The slot of the last recreation's `to` key (the next one's `from`, normally).
    @exclusivity(unchecked) private var lastKey: UInt8 = 0

    var opens: Int {
        get { Int(openCount) }
        set { openCount = UInt32(clamping: newValue) }
    }

    var recreates: Int {
        get { Int(recreateCount) }
        set { recreateCount = UInt32(clamping: newValue) }
    }

    private struct StoredEvent {
        enum Kind: UInt8 { case opened, settling, recreated, dropped, cancelled }
        let nanoseconds: Int64
        let kind: Kind
        /// The reason's code (dropped, cancelled) or the `from` key's slot (recreated).
        let detail: UInt8
        /// The `to` key's slot (recreated).
        let extra: UInt8
    }

    /// Logs an instance opened.
    func recordOpened(at time: Duration) { append(StoredEvent(nanoseconds: Self.nanoseconds(time), kind: .opened, detail: 0, extra: 0)) }

    /// Logs the settle window of a new instance starting.
    func recordSettling(at time: Duration) {
        append(StoredEvent(nanoseconds: Self.nanoseconds(time), kind: .settling, detail: 0, extra: 0))
    }

    /// Logs a recreation from one reset key to another.
    func recordRecreated(from: AnyHashableSendable?, to: AnyHashableSendable?, at time: Duration) {
        if keys.isEmpty { keys.reserveCapacity(Self.reservedKeys) }
        // The oldest event leaves the window first if it is full, so its keys may be reused.
        if Int(count) == Self.historyLimit {
            first = UInt8((Int(first) + 1) % Self.historyLimit)
            count -= 1
        }
        let fromSlot: Int
        if !keys.isEmpty, isNamed(Int(lastKey)), keys[Int(lastKey)] == from {
            fromSlot = Int(lastKey)
        } else {
            fromSlot = freeKeySlot(excluding: nil)
            keys[fromSlot] = from
        }
        let toSlot = freeKeySlot(excluding: fromSlot)
        keys[toSlot] = to
        lastKey = UInt8(toSlot)
        append(StoredEvent(nanoseconds: Self.nanoseconds(time), kind: .recreated, detail: UInt8(fromSlot), extra: UInt8(toSlot)))
    }

    /// Whether a recreation in the window names key slot `slot`.
    private func isNamed(_ slot: Int) -> Bool {
        for offset in 0..<Int(count) {
            let event = events[(Int(first) + offset) % Self.historyLimit]
            if event.kind == .recreated, Int(event.detail) == slot || Int(event.extra) == slot { return true }
        }
        return false
    }

    /// A key slot no event in the window names (appended when every slot is named; at most 16
    /// slots can be named by 8 events).
    private func freeKeySlot(excluding taken: Int?) -> Int {
        for slot in keys.indices where slot != taken && !isNamed(slot) { return slot }
        keys.append(nil)
        return keys.count - 1
    }

    /// Logs a value not delivered.
    func recordDropped(_ reason: ChannelEventReason, at time: Duration) {
        append(StoredEvent(nanoseconds: Self.nanoseconds(time), kind: .dropped, detail: reason.rawValue, extra: 0))
    }

    /// Logs an instance cancelled.
    func recordCancelled(_ reason: ChannelEventReason, at time: Duration) {
        append(StoredEvent(nanoseconds: Self.nanoseconds(time), kind: .cancelled, detail: reason.rawValue, extra: 0))
    }

    private func append(_ event: StoredEvent) {
        if Int(count) == Self.historyLimit {
            events[Int(first)] = event
            first = UInt8((Int(first) + 1) % Self.historyLimit)
        } else {
            events[(Int(first) + Int(count)) % Self.historyLimit] = event
            count += 1
        }
    }

    /// The logged events, oldest first.
    var history: [ChannelEvent] {
        var result: [ChannelEvent] = []
        result.reserveCapacity(Int(count))
        for offset in 0..<Int(count) {
            let event = events[(Int(first) + offset) % Self.historyLimit]
            let kind: ChannelEvent.Kind
            switch event.kind {
            case .opened: kind = .opened
            case .settling: kind = .settling
            case .recreated:
                kind = .recreated(from: keys[Int(event.detail)], to: keys[Int(event.extra)])
            case .dropped: kind = .dropped(reason: Self.text(event.detail))
            case .cancelled: kind = .cancelled(reason: Self.text(event.detail))
            }
            result.append(ChannelEvent(at: .nanoseconds(event.nanoseconds), kind: kind))
        }
        return result
    }

    private static func text(_ code: UInt8) -> String {
        ChannelEventReason(rawValue: code)?.text ?? "unknown"
    }

    /// `time` in whole nanoseconds, clamped to what 64 bits hold (±292 years from the start).
    static func nanoseconds(_ time: Duration) -> Int64 {
        let (seconds, attoseconds) = time.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (sum, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow || carry { return seconds < 0 ? .min : .max }
        return sum
    }
}
