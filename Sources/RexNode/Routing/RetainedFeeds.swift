import RexCluster

/// The last value of every feed a node publishes, and the answers to late joiners' snapshot
/// requests. Pure bookkeeping: the publisher sends what `answer` returns.
///
/// A snapshot request is a subscription a follower makes next to its topic's (see
/// `WireMessage.snapshotTag`): `$snap.<epoch>.<route>\0` then the topic subscription it wants a
/// snapshot of. The answer goes behind that tag, so only the subscriber that asked receives it.
struct RetainedFeeds {
    /// What to send for one request: the tag every answer's head starts with, and the values.
    struct Answer: Equatable {
        let tag: ArraySlice<UInt8>
        let values: [Retained]
        /// Matching values not sent: the rate limit was reached.
        let refused: Int
    }

    struct Retained: Equatable {
        let topic: String
        let value: String
        /// The sequence the value was published with (so a follower that had it live drops it).
        let sequence: UInt64
    }

    private var values: [String: Retained] = [:]
    private var bucket: TokenBucket

    /// `rate`: values answered per second at most (a token bucket holding one second's worth).
    init(rate: Int) {
        bucket = TokenBucket(rate: rate)
    }

    var count: Int { values.count }

    mutating func retain(topic: String, value: String, sequence: UInt64) {
        values[topic] = Retained(topic: topic, value: value, sequence: sequence)
    }

    mutating func forget(topic: String) {
        values[topic] = nil
    }

    /// The answer to `request` (the subscription frame without its kind byte) at `now` (any
    /// monotonic time); nil when the request is malformed. A request costs one token, and a
    /// prefix scan one more per 100 feeds; each value sent costs one; values past the tokens are
    /// refused.
    mutating func answer(_ request: ArraySlice<UInt8>, now: Duration) -> Answer? {
        guard let tagEnd = request.firstIndex(of: 0) else { return nil }
        bucket.refill(now: now)
        let tag = request[...tagEnd]
        let pattern = request[(tagEnd + 1)...]
        var matches: [Retained] = []
        if pattern.last == 0 {
            // An exact topic: one lookup.
            if let value = values[String(decoding: pattern.dropLast(), as: UTF8.self)] { matches.append(value) }
            bucket.spend(1)
        } else {
            bucket.spend(1 + values.count / 100)
            for (topic, value) in values where topic.utf8.starts(with: pattern) { matches.append(value) }
            matches.sort { $0.topic < $1.topic }
        }
        let affordable = min(matches.count, bucket.available)
        bucket.spend(affordable)
        return Answer(tag: tag, values: Array(matches.prefix(affordable)), refused: matches.count - affordable)
    }
}

/// Tokens refilled at `rate` per second, holding at most one second's worth.
struct TokenBucket {
    let rate: Int
    private var tokens: Double
    private var last: Duration?

    init(rate: Int) {
        self.rate = max(rate, 0)
        tokens = Double(self.rate)
    }

    /// Whole tokens available now (none while in debt).
    var available: Int { tokens >= 1 ? Int(tokens) : 0 }

    mutating func refill(now: Duration) {
        defer { last = now }
        guard let last, now > last else { return }
        let elapsed = now - last
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        tokens = min(Double(rate), tokens + seconds * Double(rate))
    }

    /// Takes `count` tokens; the balance may go negative (a scan is paid for after it ran).
    mutating func spend(_ count: Int) {
        tokens -= Double(count)
    }
}
