/// Which actors are checked in under which key, cluster-wide as this member knows it: a value with
/// no I/O. Every entry's node is the member that reported it (the transport authenticated it), so a
/// member can check in and out only its own actors.
struct ReceptionistState {
    private(set) var listings: [String: Set<ClusterActorID>] = [:]
    private(set) var entryCount = 0
    /// The most entries held (remote check-ins past it are refused and counted).
    let capacity: Int

    init(capacity: Int = 65_536) {
        self.capacity = capacity
    }

    enum Outcome: Equatable {
        case changed, unchanged, full
    }

    mutating func checkIn(_ key: String, _ id: ClusterActorID) -> Outcome {
        if listings[key]?.contains(id) == true { return .unchanged }
        guard entryCount < capacity else { return .full }
        listings[key, default: []].insert(id)
        entryCount += 1
        return .changed
    }

    mutating func checkOut(_ key: String, _ id: ClusterActorID) -> Outcome {
        guard listings[key]?.remove(id) != nil else { return .unchanged }
        entryCount -= 1
        if listings[key]?.isEmpty == true { listings[key] = nil }
        return .changed
    }

    /// Removes every entry of `node`; returns the keys that changed (sorted).
    mutating func removeNode(_ node: String) -> [String] {
        removeAll { $0.node == node }
    }

    /// Removes `id` from every key; returns the keys that changed (sorted).
    mutating func removeActor(_ id: ClusterActorID) -> [String] {
        removeAll { $0 == id }
    }

    /// `node`'s entries as (key, actor number), sorted.
    func checkIns(of node: String) -> [(key: String, number: UInt64)] {
        listings.flatMap { key, ids in ids.filter { $0.node == node }.map { (key, $0.number) } }
            .sorted { ($0.key, $0.number) < ($1.key, $1.number) }
    }

    private mutating func removeAll(where matches: (ClusterActorID) -> Bool) -> [String] {
        var changed: [String] = []
        for key in listings.keys.sorted() {
            let before = listings[key]!.count
            listings[key]!.subtract(listings[key]!.filter(matches))
            let removed = before - listings[key]!.count
            guard removed > 0 else { continue }
            entryCount -= removed
            changed.append(key)
            if listings[key]!.isEmpty { listings[key] = nil }
        }
        return changed
    }
}
