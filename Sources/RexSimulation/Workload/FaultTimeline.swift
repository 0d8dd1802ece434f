/// When each node was impaired (see ``Fault/impaired``), for the membership checker: intervals
/// per node, the open ones ending at the run's end.
struct FaultTimeline {
    private var intervals: [[(start: Duration, end: Duration?)]]

    init(nodes: Int) {
        intervals = Array(repeating: [], count: nodes)
    }

    mutating func begin(_ node: Int, at time: Duration) {
        intervals[node].append((time, nil))
    }

    /// Ends the earliest open interval of `node` (faults on one node may overlap).
    mutating func end(_ node: Int, at time: Duration) {
        guard let index = intervals[node].firstIndex(where: { $0.end == nil }) else { return }
        intervals[node][index].end = time
    }

    /// Marks an instant impairment (a clock jump) lasting `length`.
    mutating func mark(_ node: Int, from time: Duration, length: Duration) {
        intervals[node].append((time, time + length))
    }

    /// Whether `node` was impaired at any moment of `window`.
    func impaired(_ node: Int, during window: ClosedRange<Duration>) -> Bool {
        intervals[node].contains { interval in
            interval.start <= window.upperBound && (interval.end ?? .seconds(Int64.max / 2)) >= window.lowerBound
        }
    }
}
