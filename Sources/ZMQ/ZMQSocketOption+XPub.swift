import CZMQ

extension ZMQSocketOption where Value == Bool {
    /// XPUB/PUB: when a subscriber's queue is full, fail the send with would-block instead of
    /// dropping the message silently (`ZMQ_XPUB_NODROP`), so drops can be counted. Write-only.
    public static var xpubNoDrop: Self {
        Self(ZMQ_XPUB_NODROP, "xpubNoDrop", encode: { $0 ? 1 : 0 }, decode: { $0 != 0 })
    }

    /// XPUB: pass every subscribe and unsubscribe frame up, one per subscriber
    /// (`ZMQ_XPUB_VERBOSER`), so the publisher can count subscribers and greet each new one.
    /// Write-only.
    public static var xpubVerboser: Self {
        Self(ZMQ_XPUB_VERBOSER, "xpubVerboser", encode: { $0 ? 1 : 0 }, decode: { $0 != 0 })
    }
}
