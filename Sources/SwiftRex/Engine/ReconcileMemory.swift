/// What the engine remembers of the previous reconcile cycle.
///
/// Records live in a contiguous array with an index by id, so a full diff costs one hash lookup
/// per desired channel and one linear scan to find the ids that left. The signature of the last
/// desired list (its ids, reset keys and values, in order) lets a cycle whose ids did not move
/// finish with linear comparisons and touch the index only for entries that changed.
struct ReconcileMemory {
    struct Record {
        let id: AnyHashableSendable
        var resetKey: AnyHashableSendable?
        var broadcast: AnyHashableSendable?
        var seenCycle: UInt64
        var desiredIndex: Int
        var isNew: Bool
        let stats: ChannelStats
    }

    /// What identifies one desired entry for the unchanged-cycle check.
    struct Signature: Equatable {
        let id: AnyHashableSendable
        let resetKey: AnyHashableSendable?
        let broadcast: AnyHashableSendable?
    }

    var records: [Record] = []
    var index: [AnyHashableSendable: Int] = [:]
    var lastSignature: [Signature] = []
    var cycle: UInt64 = 0
    /// How many positions of `lastSignature` are vacant (`Channel.vacant()`: no record).
    var vacancies = 0
    /// Record indices in first-appearance order for the current cycle (reused buffer).
    var order: [Int] = []

    mutating func remember<Action>(_ desired: [Channel<Action>]) {
        lastSignature.removeAll(keepingCapacity: true)
        vacancies = 0
        for channel in desired {
            let storage = channel.storage
            if storage.id == vacantChannelID { vacancies += 1 }
            lastSignature.append(Signature(
                id: storage.id, resetKey: storage.lifetime.resetKey, broadcast: storage.payload.broadcastIdentity
            ))
        }
    }
}
