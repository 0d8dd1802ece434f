import Testing

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The outbox keeps a reactor turn's published messages, byte for byte and in order.
@Suite struct OutboxTests {
    private func drained(_ outbox: inout Outbox) -> [(head: [UInt8], value: [UInt8])] {
        var entries: [(head: [UInt8], value: [UInt8])] = []
        outbox.drain { head, value in entries.append((Array(head), Array(value))) }
        return entries
    }

    private func append(_ head: String, _ value: [UInt8], to outbox: inout Outbox) {
        let headBytes = Array(head.utf8)
        value.withUnsafeBytes { valueBytes in
            outbox.append(headCapacity: headBytes.count + 5, value: valueBytes) { buffer in
                buffer.copyBytes(from: headBytes)
                return headBytes.count
            }
        }
    }

    @Test func drainsEveryMessageOnceInOrderAndEmpties() {
        var outbox = Outbox(capacity: 64)
        for index in 0..<3 { append("t\0n \(index)", Array("v\(index)".utf8), to: &outbox) }
        #expect(outbox.count == 3)
        let entries = drained(&outbox)
        #expect(entries.map { String(decoding: $0.head, as: UTF8.self) } == ["t\0n 0", "t\0n 1", "t\0n 2"])
        #expect(entries.map { String(decoding: $0.value, as: UTF8.self) } == ["v0", "v1", "v2"])
        #expect(outbox.isEmpty && outbox.byteCount == 0)
        #expect(drained(&outbox).isEmpty)
    }

    @Test func growsPastItsCapacityWithoutLosingWhatWasQueued() {
        var outbox = Outbox(capacity: 16)
        let large = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
        append("a\0n 1", [], to: &outbox)
        append("b\0n 2", large, to: &outbox)
        append("c\0n 3", [7], to: &outbox)
        let entries = drained(&outbox)
        #expect(entries.count == 3)
        #expect(entries[0].value.isEmpty)
        #expect(entries[1].value == large)
        #expect(entries[2].value == [7])
        #expect(String(decoding: entries[2].head, as: UTF8.self) == "c\0n 3")
    }

    @Test func isReusedAfterADrain() {
        var outbox = Outbox(capacity: 32)
        for round in 0..<50 {
            append("t\0n \(round)", Array(repeating: UInt8(round), count: round), to: &outbox)
            let entries = drained(&outbox)
            #expect(entries.count == 1)
            #expect(entries.first?.value == Array(repeating: UInt8(round), count: round))
        }
    }
}
