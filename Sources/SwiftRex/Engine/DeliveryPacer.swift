/// The pacing of values into one live channel (`throttle`, `throttle(latest:)`, `debounce`) as a
/// state machine: one mutating function per event, each returning what the engine must do. The
/// machine holds no clock, timer or handler; the engine feeds it the time and carries out the
/// decision (deliver, count a drop, arm a timer), so the pacing rules are testable on their own.
///
/// Immediate channels have no pacer at all (the engine delivers straight away).
struct DeliveryPacer {
    /// What the engine does after an event: each field independent of the others.
    struct Decision {
        /// Deliver this value into the handler now.
        var deliver: (any Sendable)?
        /// A value was dropped (counted, and logged with this reason).
        var dropped: ChannelEventReason?
        /// Arm a timer for this instant; when it fires, call the matching `…Ended` event.
        var armTimer: Duration?
        /// The debounce arrival the timer belongs to (it names the value it may deliver).
        var sequence: UInt64 = 0
    }

    private enum State {
        /// `throttle`: the start of the current window (nil before the first value), the latest
        /// value held for the window's end (`latest` only), and whether its timer is armed.
        case throttle(interval: Duration, latest: Bool, windowStart: Duration?, trailing: (any Sendable)?, armed: Bool)
        /// `debounce`: the value waiting for the quiet period and which arrival it was.
        case debounce(quiet: Duration, waiting: (any Sendable)?, sequence: UInt64)
    }

    private var state: State

    /// A pacer for `delivery`, or nil when it delivers immediately.
    init?(_ delivery: ChannelDelivery) {
        switch delivery {
        case .immediate: return nil
        case .throttle(let interval, let latest):
            state = .throttle(interval: interval, latest: latest, windowStart: nil, trailing: nil, armed: false)
        case .debounce(let quiet):
            state = .debounce(quiet: quiet, waiting: nil, sequence: 0)
        }
    }

    /// The channel opened and delivered its value at once (not paced): a throttle window starts.
    mutating func openedWithValue(at now: Duration) {
        if case .throttle(let interval, let latest, _, let trailing, let armed) = state {
            state = .throttle(interval: interval, latest: latest, windowStart: now, trailing: trailing, armed: armed)
        }
    }

    /// A value arrived for the channel at `now`.
    mutating func arrived(_ value: any Sendable, at now: Duration) -> Decision {
        var decision = Decision()
        switch state {
        case .throttle(let interval, let latest, let windowStart, var trailing, var armed):
            if let windowStart, now - windowStart < interval {
                guard latest else {
                    decision.dropped = .throttled
                    return decision
                }
                if trailing != nil { decision.dropped = .supersededInThrottleWindow }
                trailing = value
                if !armed {
                    armed = true
                    decision.armTimer = windowStart + interval
                }
                state = .throttle(interval: interval, latest: latest, windowStart: windowStart, trailing: trailing, armed: armed)
                return decision
            }
            state = .throttle(interval: interval, latest: latest, windowStart: now, trailing: trailing, armed: armed)
            decision.deliver = value
        case .debounce(let quiet, let waiting, let sequence):
            if waiting != nil { decision.dropped = .supersededInDebounceWindow }
            let next = sequence &+ 1
            state = .debounce(quiet: quiet, waiting: value, sequence: next)
            decision.armTimer = now + quiet
            decision.sequence = next
        }
        return decision
    }

    /// The timer armed for a throttle window's end fired at `now`: deliver what it held.
    mutating func throttleWindowEnded(at now: Duration) -> Decision {
        var decision = Decision()
        guard case .throttle(let interval, let latest, let windowStart, let trailing, _) = state else { return decision }
        guard let trailing else {
            state = .throttle(interval: interval, latest: latest, windowStart: windowStart, trailing: nil, armed: false)
            return decision
        }
        // Delivering it starts the next window.
        state = .throttle(interval: interval, latest: latest, windowStart: now, trailing: nil, armed: false)
        decision.deliver = trailing
        return decision
    }

    /// The timer armed for debounce arrival `sequence` fired: deliver its value unless a later
    /// arrival superseded it.
    mutating func quietPeriodEnded(sequence fired: UInt64) -> Decision {
        var decision = Decision()
        guard case .debounce(let quiet, let waiting, let sequence) = state, sequence == fired, let waiting else { return decision }
        state = .debounce(quiet: quiet, waiting: nil, sequence: sequence)
        decision.deliver = waiting
        return decision
    }
}
