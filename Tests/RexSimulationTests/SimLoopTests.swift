import SwiftRex
import XCTest

@testable import RexSimulation

final class SimLoopTests: XCTestCase {
    enum Action: Sendable, Equatable { case set(Int), tick }

    func testAStoreOnTheLoopRunsItsThrottleOnSimulatedTime() {
        let loop = SimLoop(domains: 1)
        loop.perform { run(loop) }
    }

    private func run(_ loop: SimLoop) {
        let clock = SimClock(loop: loop, domain: 0)
        let executor = loop.makeExecutor(domain: 0)
        let sent = Sent()
        let behavior = Behavior<Action, Int, Void>
            .reduce { action, state in if case .set(let value) = action { state = value } }
            .supervise { state in
                Supervision { _ in
                    [
                        Channel<Action>(id: "feed", broadcasting: .onChange(state), delivery: .throttle(.seconds(1), latest: true)) { _ in
                            ChannelHandler(receive: { (value: Int) in sent.values.append(value) }, cancel: {})
                        }
                    ]
                }
            }
        var store: Store<Action, Int, Void>? = Store(initial: 0, behavior: behavior, clock: clock, executor: .custom(executor))
        loop.run(until: .milliseconds(10))
        for value in 1...5 { store!.dispatch(.set(value)) }
        loop.run(until: .milliseconds(500))
        XCTAssertEqual(sent.values, [0])
        loop.run(until: .milliseconds(1100))
        XCTAssertEqual(sent.values, [0, 5])
        store = nil
        loop.run(until: .seconds(2))
        XCTAssertEqual(clock.sleeperCount, 0)
    }
}

final class Sent: @unchecked Sendable {
    var values: [Int] = []
}
