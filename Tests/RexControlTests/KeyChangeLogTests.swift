import RexCluster
import RexControl
import RexFeeds
import SharedTestSupport
import Testing

/// The follows' change log against a plain record of every key: what `ids(after:)` answers,
/// when it gives up, and how much it keeps.
@Suite struct KeyChangeLogTests {
    @Test(arguments: [1, 5, 127, 128, 129, 300, 1_000])
    func answersEveryRevisionItStillHoldsAndRefusesTheRest(capacity: Int) {
        var generator = SeededGenerator(state: UInt64(capacity))
        var log = KeyChangeLog(capacity: capacity)
        var recorded: [String] = []
        var seen: [UInt64] = [0]
        for step in 0..<40 {
            // Batches of 0 to 3 × capacity keys, as a reducer records them.
            let batch = Int.random(in: 0...(3 * capacity), using: &generator)
            for index in 0..<batch {
                let key = "k\(step).\(index)"
                log.record(key)
                recorded.append(key)
            }
            #expect(log.revision == UInt64(recorded.count))
            #expect(log.count >= min(capacity, recorded.count), "keeps at least the last capacity keys")
            #expect(log.count <= 2 * capacity + 2 * 128, "bounded: twice the capacity, plus at most two chunks")
            seen.append(log.revision)
            for revision in seen {
                let missing = recorded.count - Int(revision)
                let expected = Array(recorded.suffix(missing))
                if let ids = log.ids(after: revision) {
                    #expect(Array(ids) == expected, "revision \(revision) of \(recorded.count)")
                } else {
                    #expect(missing > log.count, "nil only for keys that left the log")
                }
            }
        }
        #expect(log.ids(after: log.revision + 1) == nil, "a revision this log never had")
        #expect(log.ids(after: log.revision)?.isEmpty == true)
    }

    /// A copy taken between batches (the published state) keeps what it saw while the original
    /// goes on recording.
    @Test func aCopyIsUnaffectedByLaterRecords() {
        var log = KeyChangeLog(capacity: 256)
        for index in 0..<300 { log.record("a\(index)") }
        let published = log
        for index in 0..<500 { log.record("b\(index)") }
        #expect(published.revision == 300)
        #expect(published.ids(after: 290).map(Array.init) == (290..<300).map { "a\($0)" })
        #expect(log.ids(after: 790).map(Array.init) == (490..<500).map { "b\($0)" })
    }
}
