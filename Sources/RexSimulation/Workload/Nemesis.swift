import RexMembership

/// A seeded schedule of faults over a run: one every few seconds, each lasting a while, some
/// overlapping. The same seed gives the same schedule.
struct Nemesis {
    struct Entry {
        let start: Duration
        let end: Duration
        let fault: Fault
    }

    private(set) var entries: [Entry] = []

    /// Faults from `from` until `until`, over `nodes` nodes.
    init(seed: UInt64, nodes: Int, from: Duration, until: Duration, meanGap: Duration = .seconds(4)) {
        var random = MembershipRandom(seed: seed)
        func uniform(_ low: Duration, _ high: Duration) -> Duration {
            let span = UInt64((high - low) / .milliseconds(1))
            return low + .milliseconds(Int64(random.next() % max(span, 1)))
        }
        func someNodes(_ count: Int) -> [Int] {
            var pool = Array(0..<nodes)
            var chosen: [Int] = []
            for _ in 0..<min(count, nodes) { chosen.append(pool.remove(at: random.index(below: pool.count))) }
            return chosen.sorted()
        }
        var time = from
        while true {
            time += uniform(meanGap / 2, meanGap * 3 / 2)
            guard time < until, nodes > 1 else { break }
            let node = random.index(below: nodes)
            let length = uniform(.milliseconds(500), .seconds(8))
            let fault: Fault
            switch random.index(below: 11) {
            case 0:
                let side = someNodes(1 + random.index(below: max(nodes / 2, 1)))
                fault = .partition(side, (0..<nodes).filter { !side.contains($0) })
            case 1:
                let from = someNodes(1 + random.index(below: max(nodes / 3, 1)))
                fault = .oneWayCut(from: from, to: someNodes(1 + random.index(below: max(nodes / 3, 1))).filter { !from.contains($0) })
            case 2: fault = .loss(node: node, probability: [0.02, 0.1, 0.4][random.index(below: 3)])
            case 3: fault = .pause(node)
            case 4, 5: fault = .kill(node)
            case 6: fault = .clockJump(node, uniform(.milliseconds(100), .seconds(3)))
            case 7: fault = .killMidWrite(node)
            case 9: fault = .slowLink(node: node, delay: uniform(.milliseconds(20), .milliseconds(80)))
            case 8: fault = .slowDisk(node, uniform(.milliseconds(50), .milliseconds(500)))
            default: fault = .fullDisk(node)
            }
            entries.append(Entry(start: time, end: min(time + length, until), fault: fault))
        }
    }
}
