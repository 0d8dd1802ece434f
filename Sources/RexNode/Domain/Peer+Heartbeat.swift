import RexControl

extension Peer {
    /// A heartbeat numbered `sequence` in the peer's `epoch`: a new epoch starts the count over,
    /// skipped numbers are gaps, and a repeated or older number (a replay) changes nothing.
    mutating func recordHeartbeat(epoch: UInt64, sequence: UInt64, atMs: Int) {
        if let known = self.epoch, known == epoch, let last = lastHeartbeat {
            guard sequence > last else { return }
            let (sum, overflow) = gaps.addingReportingOverflow(Int(clamping: sequence - last - 1))
            gaps = overflow ? Int.max : sum
        } else if self.epoch != nil, self.epoch != epoch {
            restarts += 1
        }
        self.epoch = epoch
        lastHeartbeat = sequence
        lastSeenMs = atMs
        status = .alive
    }
}
