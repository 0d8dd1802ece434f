import RexFeeds
import XCTest

@testable import RexSimulation

/// The journal on the simulated disk, and the durability checker's own rule.
final class DurabilityTests: XCTestCase {
    private let catalog = NodeFeature.operatorActions

    /// A crash keeps a torn prefix of an unsynced frame: recovery stops at the last intact frame
    /// and reports the torn bytes.
    func testATornLastWriteIsCutAtTheLastIntactFrame() throws {
        let disk = SimDisk()
        let first = try XCTUnwrap(SimJournal.frame([NodeAction.set(topic: "a", value: "1")], catalog: catalog))
        let second = try XCTUnwrap(SimJournal.frame([NodeAction.set(topic: "a", value: "2")], catalog: catalog))
        try disk.append(first)
        disk.completeFsync(covering: disk.beginFsync())
        try disk.append(second)
        disk.crash(keeping: second.count - 3)
        let recovery = SimJournal.recover(disk.contents, catalog: catalog)
        XCTAssertEqual(recovery.actions, [.set(topic: "a", value: "1")])
        XCTAssertEqual(recovery.discardedBytes, second.count - 3)
    }

    /// A full disk refuses the write and keeps what it had.
    func testAFullDiskRefusesAWrite() throws {
        let disk = SimDisk()
        try disk.append([1, 2, 3])
        disk.capacity = 4
        XCTAssertThrowsError(try disk.append([4, 5]))
        XCTAssertEqual(disk.contents, [1, 2, 3])
    }

    /// acknowledged ⊆ recovered ⊆ written: recovering fewer actions than were acknowledged, or
    /// actions that were never written, is a violation; recovering unacknowledged ones is not.
    func testTheCheckerHoldsAcknowledgedWithinRecoveredWithinWritten() {
        let log = DurabilityLog<NodeAction>(node: "n1")
        let actions: [NodeAction] = (1...3).map { .set(topic: "a", value: "\($0)") }
        for action in actions { log.wrote(action) }
        log.acknowledge(2)
        log.recovered(Array(actions.prefix(3)))
        XCTAssertEqual(log.violations.count, 0)
        log.wrote(.set(topic: "a", value: "4"))
        log.acknowledge(1)
        log.recovered(Array(actions.prefix(3)))
        XCTAssertEqual(log.violations.count, 1)
        log.recovered(actions + [.set(topic: "b", value: "x")])
        XCTAssertEqual(log.violations.count, 2)
    }
}
