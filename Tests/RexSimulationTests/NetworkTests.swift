import RexCluster
import XCTest

@testable import RexSimulation

/// The simulated network's ZeroMQ semantics: order kept under loss (TCP retransmits), drops at
/// the high-water mark, a cut stalls a pipe until it heals.
final class NetworkTests: XCTestCase {
    private func withNetwork(highWaterMark: Int = 1000, _ body: (SimLoop, SimNetwork, SimPipe, Received.Log) -> Void) {
        let loop = SimLoop(domains: 2)
        loop.perform {
            let history = History(keepLines: false) { loop.now }
            let network = SimNetwork(loop: loop, nodes: 2, seed: 7, highWaterMark: highWaterMark, history: history)
            let pipe = SimPipe(from: 0, to: 1, highWaterMark: highWaterMark)
            let log = Received.Log()
            pipe.receive = { frame in if case .membership(let bytes) = frame { log.values.append(Int(bytes[0])) } }
            body(loop, network, pipe, log)
        }
    }

    func testLossDelaysFramesAndKeepsTheirOrder() {
        withNetwork { loop, network, pipe, log in
            network.faults.setLoss(0, 1, 0.5)
            for value in 0..<100 { network.send(.membership([UInt8(value)]), on: pipe) }
            loop.run(until: .seconds(60))
            XCTAssertEqual(log.values, Array(0..<100))
            XCTAssertGreaterThan(network.counters.retransmitted, 20)
        }
    }

    func testAFullPipeDropsNewFrames() {
        withNetwork(highWaterMark: 10) { loop, network, pipe, log in
            network.faults.setCut(0, 1, true)
            for value in 0..<15 { network.send(.membership([UInt8(value)]), on: pipe) }
            loop.run(until: .seconds(1))
            XCTAssertEqual(log.values, [])
            network.faults.setCut(0, 1, false)
            network.unstall()
            loop.run(until: .seconds(2))
            XCTAssertEqual(log.values, Array(0..<10))
            XCTAssertEqual(network.counters.droppedAtHighWaterMark, 5)
        }
    }
}

extension Received {
    /// What a test pipe received, in order.
    final class Log {
        var values: [Int] = []
    }
}
