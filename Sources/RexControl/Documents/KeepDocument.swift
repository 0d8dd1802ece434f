/// The result of `keep`: the engine's keep set (every live or settling channel) and the
/// reconcile counters.
///
/// Members without a value are written as `null` (`resetKey`, `settleMs`; a recreation's
/// `from` and `to`), not left out.
public struct KeepDocument: Codable, Sendable, Equatable {
    /// In the order the engine first opened them (oldest first).
    public var channels: [Channel]
    public var counters: Counters

    public init(channels: [Channel], counters: Counters) {
        self.channels = channels
        self.counters = counters
    }

    /// One channel of the keep set.
    public struct Channel: Codable, Sendable, Equatable {
        /// Whether the channel lives as long as the node (`permanent`) or is recreated when its
        /// reset key changes (`ephemeral`).
        public enum Lifetime: String, Codable, Sendable {
            case permanent, ephemeral
        }

        /// Whether the channel is open yet.
        public enum Status: String, Codable, Sendable {
            /// Open: its body ran and its handler receives values.
            case live
            /// Waiting out its settle window; nothing is open yet.
            case settling
        }

        /// `pub`, `membership`, `feed[<topic>]`, `peer[<id>]`, `follow[<name>]`.
        public var id: String
        public var lifetime: Lifetime
        /// An ephemeral channel's reset key: a new key recreates it.
        public var resetKey: String?
        public var settleMs: Double?
        /// `nothing`, `onChange` or `value`.
        public var broadcasting: String
        /// `immediate`, `throttle(100ms, latest)`, `debounce(50ms)`.
        public var delivery: String
        public var status: Status
        /// Whether a supervise owns it (false: opened imperatively).
        public var supervised: Bool
        /// When the current instance opened (or began settling), in ms since the node started.
        public var sinceMs: Int
        /// How long ago that was.
        public var ageMs: Int
        public var opens: Int
        public var recreates: Int
        public var deliveries: Int
        public var drops: Int
        /// The last lifecycle events of the id, oldest first.
        public var history: [ChannelEvent]

        public init(
            id: String, lifetime: Lifetime, resetKey: String? = nil, settleMs: Double? = nil, broadcasting: String,
            delivery: String, status: Status, supervised: Bool, sinceMs: Int, ageMs: Int, opens: Int, recreates: Int,
            deliveries: Int, drops: Int, history: [ChannelEvent]
        ) {
            self.id = id
            self.lifetime = lifetime
            self.resetKey = resetKey
            self.settleMs = settleMs
            self.broadcasting = broadcasting
            self.delivery = delivery
            self.status = status
            self.supervised = supervised
            self.sinceMs = sinceMs
            self.ageMs = ageMs
            self.opens = opens
            self.recreates = recreates
            self.deliveries = deliveries
            self.drops = drops
            self.history = history
        }

        /// Writes every member, `null` for a missing reset key or settle.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(lifetime, forKey: .lifetime)
            try container.encode(resetKey, forKey: .resetKey)
            try container.encode(settleMs, forKey: .settleMs)
            try container.encode(broadcasting, forKey: .broadcasting)
            try container.encode(delivery, forKey: .delivery)
            try container.encode(status, forKey: .status)
            try container.encode(supervised, forKey: .supervised)
            try container.encode(sinceMs, forKey: .sinceMs)
            try container.encode(ageMs, forKey: .ageMs)
            try container.encode(opens, forKey: .opens)
            try container.encode(recreates, forKey: .recreates)
            try container.encode(deliveries, forKey: .deliveries)
            try container.encode(drops, forKey: .drops)
            try container.encode(history, forKey: .history)
        }
    }

    /// The reconcile engine's counters.
    public struct Counters: Codable, Sendable, Equatable {
        public var cycles: Int
        /// Cycles that opened, recreated, piped into or cancelled anything.
        public var changedCycles: Int
        public var opens: Int
        public var cancels: Int
        public var recreates: Int
        public var deliveries: Int
        public var drops: Int
        /// Live channel instances (opens − cancels).
        public var live: Int
        /// The last and the longest cycle, in ms.
        public var lastMs: Double
        public var maxMs: Double

        public init(
            cycles: Int, changedCycles: Int, opens: Int, cancels: Int, recreates: Int, deliveries: Int, drops: Int,
            live: Int, lastMs: Double, maxMs: Double
        ) {
            self.cycles = cycles
            self.changedCycles = changedCycles
            self.opens = opens
            self.cancels = cancels
            self.recreates = recreates
            self.deliveries = deliveries
            self.drops = drops
            self.live = live
            self.lastMs = lastMs
            self.maxMs = maxMs
        }
    }

    /// This keep set as a watch compares it: ages set to 0, since they change with every read.
    public var ignoringAges: KeepDocument {
        var copy = self
        for index in copy.channels.indices { copy.channels[index].ageMs = 0 }
        return copy
    }
}

/// Something that happened to a channel id, in ms since the node started.
///
/// ```json
/// {"atMs": 1150, "event": "recreated", "from": "eu.old", "to": "eu.prices"}
/// ```
public struct ChannelEvent: Codable, Sendable, Equatable {
    /// What happened (the `event` member, and the members that go with it).
    public enum Kind: Sendable, Equatable {
        case opened
        case settling
        /// The reset key changed (`from`/`to` are `null` when a key was none).
        case recreated(from: String?, to: String?)
        case dropped(reason: String)
        case cancelled(reason: String)
    }

    public var atMs: Int
    public var kind: Kind

    public init(atMs: Int, _ kind: Kind) {
        self.atMs = atMs
        self.kind = kind
    }

    enum Key: String, CodingKey {
        case atMs, event, from, to, reason
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        atMs = try container.decode(Int.self, forKey: .atMs)
        let event = try container.decode(String.self, forKey: .event)
        switch event {
        case "opened": kind = .opened
        case "settling": kind = .settling
        case "recreated":
            kind = .recreated(
                from: try container.decodeIfPresent(String.self, forKey: .from),
                to: try container.decodeIfPresent(String.self, forKey: .to))
        case "dropped": kind = .dropped(reason: try container.decode(String.self, forKey: .reason))
        case "cancelled": kind = .cancelled(reason: try container.decode(String.self, forKey: .reason))
        default:
            throw DecodingError.dataCorruptedError(forKey: .event, in: container, debugDescription: "unknown event '\(event)'")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(atMs, forKey: .atMs)
        switch kind {
        case .opened: try container.encode("opened", forKey: .event)
        case .settling: try container.encode("settling", forKey: .event)
        case .recreated(let from, let to):
            try container.encode("recreated", forKey: .event)
            try container.encode(from, forKey: .from)
            try container.encode(to, forKey: .to)
        case .dropped(let reason):
            try container.encode("dropped", forKey: .event)
            try container.encode(reason, forKey: .reason)
        case .cancelled(let reason):
            try container.encode("cancelled", forKey: .event)
            try container.encode(reason, forKey: .reason)
        }
    }
}
