/// The changes a member still has to piggyback, at most one per member (a newer change about a
/// member replaces the older one). Each message takes the least-sent rumours first, within a
/// count and a byte budget; a rumour sent `limit` times is dropped.
struct RumourQueue {
    struct Rumour {
        var update: MemberUpdate
        var size: Int
        var transmissions: Int
    }

    private(set) var rumours: [Rumour] = []
    private var index: [String: Int] = [:]
    /// Scratch for the selection order, kept to avoid an allocation per message.
    private var order: [Int] = []

    var isEmpty: Bool { rumours.isEmpty }
    var count: Int { rumours.count }

    /// Queues `update` as news (sent 0 times so far), replacing any rumour about the same member.
    mutating func add(_ update: MemberUpdate) {
        let rumour = Rumour(update: update, size: MembershipWire.encodedSize(of: update), transmissions: 0)
        if let position = index[update.member.id] {
            rumours[position] = rumour
        } else {
            index[update.member.id] = rumours.count
            rumours.append(rumour)
        }
    }

    func rumour(about id: String) -> MemberUpdate? { index[id].map { rumours[$0].update } }

    mutating func remove(about id: String) {
        guard let position = index.removeValue(forKey: id) else { return }
        let last = rumours.count - 1
        if position != last {
            rumours[position] = rumours[last]
            index[rumours[position].update.member.id] = position
        }
        rumours.removeLast()
    }

    /// Appends to `gossip` the rumours for one message: first the one about `recipient` (it may
    /// need to refute it), then the least-sent ones, within `maxCount` updates and `maxBytes`.
    mutating func select(into gossip: inout [MemberUpdate], recipient: String?, maxCount: Int, maxBytes: Int, limit: Int) {
        guard !rumours.isEmpty, maxCount > 0 else { return }
        var bytes = 0
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: rumours.indices)
        if rumours.count > 1 {
            order.sort { rumours[$0].transmissions < rumours[$1].transmissions }
        }
        if let recipient, let position = index[recipient], let at = order.firstIndex(of: position), at != 0 {
            order.remove(at: at)
            order.insert(position, at: 0)
        }
        var expired = false
        for position in order {
            guard gossip.count < maxCount else { break }
            let size = rumours[position].size
            guard bytes + size <= maxBytes else { continue }
            bytes += size
            gossip.append(rumours[position].update)
            rumours[position].transmissions += 1
            if rumours[position].transmissions >= limit { expired = true }
        }
        if expired {
            var position = 0
            while position < rumours.count {
                if rumours[position].transmissions >= limit {
                    remove(about: rumours[position].update.member.id)
                } else {
                    position += 1
                }
            }
        }
    }
}
