/// What one update of a supervise changed in the channels it declares.
///
/// The engine reconciles only what this names: `unchanged` costs it nothing, `ranges` only the
/// positions inside them, `resized` a full diff. A part may report more than what really changed
/// (an opaque supervise reports everything) but never less.
enum SupervisorChange: Equatable {
    /// Every position holds the same declaration as at the last update.
    case unchanged
    /// Same length as before; only positions inside these ranges (ascending, disjoint, non-empty)
    /// may hold a different declaration.
    case ranges([Range<Int>])
    /// The length changed or positions moved: any position may differ.
    case resized

    /// The change of a part that re-declared everything: `before` channels, now `after`.
    static func rebuilt(before: Int, after: Int) -> SupervisorChange {
        guard before == after else { return .resized }
        return after == 0 ? .unchanged : .ranges([0..<after])
    }

    /// This change seen from a parent that places the part at `offset`.
    func shifted(by offset: Int) -> SupervisorChange {
        guard case .ranges(let ranges) = self, offset != 0 else { return self }
        return .ranges(ranges.map { ($0.lowerBound + offset)..<($0.upperBound + offset) })
    }
}

/// Gathers the changes of consecutive parts into the change of their concatenation.
struct SupervisorChangeCollector {
    private(set) var ranges: [Range<Int>] = []
    private(set) var resized = false

    /// Adds the change of a part placed at `offset`.
    mutating func add(_ change: SupervisorChange, at offset: Int) {
        switch change {
        case .unchanged:
            break
        case .resized:
            resized = true
        case .ranges(let parts):
            guard !resized else { return }
            // Adjacent ranges merge, so a run of changed elements is one range.
            for part in parts { add((part.lowerBound + offset)..<(part.upperBound + offset)) }
        }
    }

    /// Adds one range of positions that may differ (what `add(.ranges([range]), at: 0)` adds,
    /// without building the array).
    mutating func add(_ range: Range<Int>) {
        guard !resized, !range.isEmpty else { return }
        if let last = ranges.last, last.upperBound == range.lowerBound {
            ranges[ranges.count - 1] = last.lowerBound..<range.upperBound
        } else {
            ranges.append(range)
        }
    }

    mutating func markResized() { resized = true }

    var change: SupervisorChange {
        if resized { return .resized }
        return ranges.isEmpty ? .unchanged : .ranges(ranges)
    }
}
