/// Sorts channels into a few named classes whose lifecycle the engine counts apart, in
/// `ReconcileCounters.byClass`: instances opened, cancelled and recreated per class.
///
/// Give one in `StoreOptions.channelClassifier`. The engine calls `classify` once when an
/// instance opens (the cancel reuses that answer) and once per recreation, on the store's
/// executor; without a classifier none of this runs. An index outside `classes` counts in the
/// totals only.
///
/// ```swift
/// let classifier = ChannelClassifier(classes: ["feed", "other"]) { id in
///     (id.base as? String)?.hasPrefix("feed.") == true ? 0 : 1
/// }
/// ```
public struct ChannelClassifier: Sendable {
    /// The class names, in the order `byClass` lists them.
    public let classes: [String]
    /// The class of the channel with this id: an index into `classes`.
    public let classify: @Sendable (AnyHashableSendable) -> Int

    /// A classifier with these class names (at most 255) and this function from channel id to
    /// class index.
    public init(classes: [String], classify: @escaping @Sendable (AnyHashableSendable) -> Int) {
        self.classes = Array(classes.prefix(Int(Self.unclassified)))
        self.classify = classify
    }

    /// What a live instance stores for "no class".
    static let unclassified = UInt8.max

    /// The class index of `id` as a live instance keeps it (`unclassified` when out of range).
    func index(of id: AnyHashableSendable) -> UInt8 {
        let index = classify(id)
        return index >= 0 && index < classes.count ? UInt8(index) : Self.unclassified
    }
}

/// One class's channel lifecycle counters (see `ChannelClassifier`).
public struct ChannelClassCounters: Sendable, Equatable {
    /// The class name.
    public let name: String
    /// Instances of this class opened (including recreations).
    public var opens = 0
    /// Instances of this class cancelled (including recreations).
    public var cancels = 0
    /// Recreations of channels of this class caused by a reset-key change.
    public var recreates = 0

    /// Counters at zero for the class `name`.
    public init(name: String) { self.name = name }
}
