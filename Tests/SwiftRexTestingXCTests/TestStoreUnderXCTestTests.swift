import SwiftRex
import SwiftRexTesting
import XCTest

/// The test kit reports to XCTest when no Swift Testing test is running: a wrong expectation
/// fails the XCTestCase at the line of the `send`/`receive`/`finish` that made it.
final class TestStoreUnderXCTestTests: XCTestCase {
    enum CounterAction: Equatable, Sendable { case increment, incrementLater }

    /// Failures the test kit reported while `capturing` was on; any other failure goes to XCTest.
    private var captured: [(description: String, line: Int)] = []
    private var capturing = false

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        guard capturing else {
            return super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
        captured.append((description, lineNumber))
    }

    private static let counter = Behavior<CounterAction, Int, Void>
        .reduce { action, count in if action == .increment { count += 1 } }
        .produce { action, _ in action == .incrementLater ? .just(.increment) : .empty }

    func testAWrongStateExpectationFailsTheTestCaseAtTheSendLine() async {
        let store = TestStore(initial: 0, behavior: Self.counter, environment: ())
        capturing = true
        let line = #line + 1
        await store.send(.increment) { $0 = 2 }
        capturing = false
        XCTAssertEqual(captured.count, 1)
        XCTAssertEqual(captured.first?.line, line)
        XCTAssertTrue(captured.first?.description.contains("differs from the expected state") ?? false, "\(captured)")
        await store.finish()
    }

    func testAnUnreceivedActionFailsFinish() async {
        let store = TestStore(initial: 0, behavior: Self.counter, environment: ())
        await store.send(.incrementLater)
        capturing = true
        await store.finish()
        capturing = false
        XCTAssertEqual(captured.count, 1)
        XCTAssertTrue(captured.first?.description.contains("were received and not asserted") ?? false, "\(captured)")
    }

    func testAMatchingExpectationRecordsNothing() async {
        let store = TestStore(initial: 0, behavior: Self.counter, environment: ())
        capturing = true
        await store.send(.incrementLater)
        await store.receive(.increment) { $0 = 1 }
        await store.finish()
        capturing = false
        XCTAssertTrue(captured.isEmpty, "\(captured)")
    }
}
