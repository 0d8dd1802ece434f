/// The terms every node gives its watchers (docs/protocol.md, "watch").
///
/// A ROUTER socket cannot see a client disconnect, so a watch lives only as long as its lease:
/// a client renews it (`renew`) well before it runs out, and a client that vanished costs the
/// node nothing once its lease has passed.
public enum WatchPolicy {
    /// The lease of a watch that asks for none.
    public static let defaultLeaseMs = 10_000
    /// The leases a watch may ask for.
    public static let leaseRangeMs = 1_000...60_000
    /// At most one push per watcher per this many milliseconds: changes in between coalesce.
    public static let pushIntervalMs = 50
    /// Watches one node serves at once; one more is refused with `limitReached`.
    public static let maxWatchers = 64

    /// Reads an optional `leaseMs`.
    ///
    /// - Throws: ``ControlError`` `badRequest` for anything but a whole number in ``leaseRangeMs``.
    static func lease<Key: CodingKey>(in container: KeyedDecodingContainer<Key>, forKey key: Key) throws(ControlError) -> Int? {
        guard container.contains(key) else { return nil }
        guard let lease = try? container.decode(Int.self, forKey: key), leaseRangeMs.contains(lease) else {
            throw ControlError(
                .badRequest,
                "field '\(key.stringValue)' must be a whole number of milliseconds "
                    + "from \(leaseRangeMs.lowerBound) to \(leaseRangeMs.upperBound)")
        }
        return lease
    }
}
