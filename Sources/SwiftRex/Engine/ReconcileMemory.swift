/// What the engine remembers of the previous reconcile cycle.
///
/// Records live in a contiguous array with an index by id, so a cycle costs one hash lookup per
/// desired channel and one linear scan to find the ids that left. The raw signature of the last
/// desired list lets an unchanged cycle finish with a linear comparison and no hashing at all.
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
    /// Record indices in first-appearance order for the current cycle (reused buffer).
    var order: [Int] = []

    /// Whether `desired` is entry for entry what the last cycle saw.
    func matchesLastCycle<Action>(_ desired: [Channel<Action>]) -> Bool {
        guard desired.count == lastSignature.count else { return false }
        for i in desired.indices {
            let channel = desired[i]
            let previous = lastSignature[i]
            guard channel.id == previous.id,
                  channel.lifetime.resetKey == previous.resetKey,
                  channel.payload.broadcastIdentity == previous.broadcast else { return false }
        }
        return true
    }

    mutating func remember<Action>(_ desired: [Channel<Action>]) {
        lastSignature.removeAll(keepingCapacity: true)
        for channel in desired {
            lastSignature.append(Signature(
                id: channel.id, resetKey: channel.lifetime.resetKey, broadcast: channel.payload.broadcastIdentity
            ))
        }
    }
}
