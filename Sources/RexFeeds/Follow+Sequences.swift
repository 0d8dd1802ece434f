import RexCluster
import RexControl

extension Follow {
    /// Records messages one read brought, oldest first: each is accepted, or counted and dropped
    /// as a duplicate or an older message. Returns how many were accepted; `lastValue` becomes
    /// the newest accepted one's.
    @discardableResult
    mutating func record(_ messages: [Received], streamLimit: Int) -> Int {
        var newest: Int?
        var accepted = 0
        for index in messages.indices {
            let message = messages[index]
            guard
                recordSequence(
                    message.sequence, epoch: message.epoch, sender: message.sender, topic: message.topic,
                    snapshot: message.isSnapshot, streamLimit: streamLimit)
            else { continue }
            accepted += 1
            newest = index
        }
        if let newest {
            let message = messages[newest]
            lastValue = message.value
            lastTopic = message.topic
            lastSender = message.sender
        }
        return accepted
    }

    /// Whether the message `sequence` of `sender` on `topic` is new, counting what it says:
    /// skipped sequences (gaps), a repeat (duplicate), an older one (reordered), a new epoch
    /// (restart). A snapshot (a retained value sent to a late joiner) that is not new is dropped
    /// without being counted: the follower already had it live.
    ///
    /// Every received message goes through here: one hash lookup per level, values updated in
    /// place (a keyed `[sender][topic]` read plus write would hash four times).
    mutating func recordSequence(
        _ sequence: UInt64, epoch: UInt64, sender: String, topic: String, snapshot: Bool = false, streamLimit: Int
    ) -> Bool {
        guard let senderIndex = senders.cheapIndex(forKey: sender) else {
            count += 1
            senders[sender] = SenderSequences(epoch: epoch, lastSequence: [topic: sequence], heardAt: count)
            streams += 1
            evictIfOver(streamLimit, keeping: sender, topic)
            return true
        }
        if senders.values[senderIndex].epoch != epoch {
            // The sender restarted: its old numbers mean nothing now.
            count += 1
            streams -= senders.values[senderIndex].lastSequence.count - 1
            senders.values[senderIndex] = SenderSequences(epoch: epoch, lastSequence: [topic: sequence], heardAt: count)
            restarts += 1
            return true
        }
        switch senders.values[senderIndex].lastSequence.record(sequence, for: topic) {
        case .first:
            count += 1
            senders.values[senderIndex].heardAt = count
            streams += 1
            evictIfOver(streamLimit, keeping: sender, topic)
            return true
        case .next(let skipped):
            count += 1
            senders.values[senderIndex].heardAt = count
            let (sum, overflow) = gaps.addingReportingOverflow(Int(clamping: skipped))
            gaps = overflow ? Int.max : sum
            return true
        case .repeated:
            if !snapshot { duplicates += 1 }
            return false
        case .older:
            if !snapshot { reordered += 1 }
            return false
        }
    }

    /// Forgets the least recently heard sender other than `sender` while over `limit` streams;
    /// when `sender` is the only one, forgets its topics other than `topic` instead.
    private mutating func evictIfOver(_ limit: Int, keeping sender: String, _ topic: String) {
        while streams > max(limit, 1) {
            var oldest: Dictionary<String, SenderSequences>.Index?
            for index in senders.indices where senders.keys[index] != sender {
                if oldest == nil || senders.values[index].heardAt < senders.values[oldest!].heardAt { oldest = index }
            }
            if let oldest {
                let forgotten = senders.values[oldest].lastSequence.count
                senders.remove(at: oldest)
                streams -= forgotten
                evicted += forgotten
                continue
            }
            guard let only = senders.index(forKey: sender) else { return }
            guard let victim = Self.anyTopic(of: senders.values[only], except: topic) else { return }
            senders.values[only].lastSequence[victim] = nil
            streams -= 1
            evicted += 1
        }
    }
}

extension Follow {
    /// A topic of `sequences` other than `topic`, if there is one.
    fileprivate static func anyTopic(of sequences: SenderSequences, except topic: String) -> String? {
        sequences.lastSequence.keys.first { $0 != topic }
    }
}

/// Where a sequence stands against the last one of its stream.
package enum SequenceStep: Equatable {
    /// The stream's first message.
    case first
    /// Newer than the last, after `skipped` missed ones.
    case next(skipped: UInt64)
    case repeated
    case older
}

extension [String: UInt64] {
    /// Keeps the highest sequence per key and says where `sequence` stands.
    fileprivate mutating func record(_ sequence: UInt64, for key: String) -> SequenceStep {
        guard let index = cheapIndex(forKey: key) else {
            self[key] = sequence
            return .first
        }
        let last = values[index]
        guard sequence > last else { return sequence == last ? .repeated : .older }
        values[index] = sequence
        return .next(skipped: sequence - last - 1)  // no overflow: sequence > last
    }
}

extension Dictionary where Key == String {
    /// `index(forKey:)` that compares instead of hashing when the dictionary has one entry —
    /// the usual case here: a follow hears one sender on one topic, and hashing a string costs
    /// more than comparing it.
    fileprivate func cheapIndex(forKey key: String) -> Index? {
        if count == 1 {
            let only = startIndex
            return keys[only] == key ? only : nil
        }
        return index(forKey: key)
    }
}
