/// How long the engine keeps a channel alive, and what makes it recreate.
public struct ChannelLifetime: Sendable, Hashable, CustomStringConvertible {
    /// The identity whose change recreates the channel; `nil` for a permanent channel.
    public let resetKey: AnyHashableSendable?
    /// How long a new reset key must stay unchanged before the (re)created channel opens.
    public let settle: Duration?

    /// Open once and keep it open across state changes; cancelled only when it leaves the set.
    public static var permanent: ChannelLifetime { ChannelLifetime(resetKey: nil, settle: nil) }

    /// Recreate (cancel, then reopen) whenever `resetKey` changes between reconcile cycles.
    ///
    /// With `settle`, the old instance is torn down at once but the new one opens only after the
    /// key has been quiet for `settle`; nothing is live during that window. Settle applies to the
    /// first appearance too. Negative durations count as zero.
    public static func ephemeral(resetKey: some Hashable & Sendable, settle: Duration? = nil) -> ChannelLifetime {
        ChannelLifetime(resetKey: AnyHashableSendable(resetKey), settle: settle.map(\.clampedToZero))
    }

    /// Whether the channel is never recreated while desired.
    public var isPermanent: Bool { resetKey == nil }

    public var description: String {
        guard let resetKey else { return "permanent" }
        if let settle { return "ephemeral(key=\(resetKey), settle=\(settle))" }
        return "ephemeral(key=\(resetKey))"
    }
}
