import Foundation
import NodeTestSupport
import SharedTestSupport
import Synchronization
import Testing
import ZMQ

@testable import RexCluster
@testable import RexFeeds
@testable import RexNode

/// The reactor's readers: a message is handed to its reader whether it arrived while the reactor
/// slept or while it worked, including when work of the same turn consumed the edge of the
/// socket's `ZMQ_FD` (what any wait on the descriptors instead of `zmq_poll` must get right); a
/// socket closed without removing its reader does not stop the loop.
@Suite struct ReactorReaderTests {
    /// The idle poll of the reactors under test, far past `Arrivals.safetyTimeout`: a message
    /// reaches its reader in time only if its socket woke the poll.
    static let idleWake = Duration.seconds(3_600)

    /// Two PAIR sockets over inproc on the reactor: `receiver` has a reader that records each
    /// message, `sender` is for jobs to send from.
    private final class Pair {
        let receiver: ZMQSocket
        let sender: ZMQSocket
        var token: ReaderToken?

        init(context: ZMQContext, name: String) throws {
            receiver = try context.socket(.pair)
            try receiver.bind("inproc://\(name)")
            sender = try context.socket(.pair)
            try sender.connect("inproc://\(name)")
        }

        func close() {
            receiver.close()
            sender.close()
        }
    }

    /// What a reader received, in order; each message is also signalled.
    private final class Received: Sendable {
        let messages = Mutex<[String]>([])
        let arrivals = Arrivals()
    }

    private func start(_ reactor: Reactor, context: ZMQContext, name: String, received: Received) throws -> ReactorBound<Pair> {
        try reactor.sync {
            let pair = try Pair(context: context, name: name)
            pair.token = reactor.addReader(pair.receiver) {
                while let frames = try? pair.receiver.tryReceiveMultipart() {
                    let text = String(decoding: frames.first ?? [], as: UTF8.self)
                    received.messages.withLock { $0.append(text) }
                    received.arrivals.signal()
                }
            }
            return ReactorBound(pair, on: reactor)
        }
    }

    @Test func aMessageSentWhileTheReactorSleepsReachesItsReader() async throws {
        let context = try ZMQContext()
        // An idle poll of an hour: only the socket's signal can wake the reactor in time.
        let reactor = Reactor(name: "reactor-reader-sleep", idleWake: Self.idleWake)
        let received = Received()
        let pair = try start(reactor, context: context, name: "reader-sleep", received: received)
        defer {
            try? reactor.sync { pair.value.close() }
            reactor.stop()
            try? context.terminate(timeout: .seconds(1))
        }
        for index in 1...3 {
            // One job per message: the reactor is back in its poll before the next send.
            reactor.execute { _ = try? pair.value.sender.send("m\(index)") }
            #expect(await received.arrivals.wait(), "message \(index) delivered")
        }
        #expect(received.messages.withLock { $0 } == ["m1", "m2", "m3"])
    }

    /// The case `zmq_poll` covers and a plain wait on `ZMQ_FD` gets wrong: the job sends, then asks
    /// the receiver for `ZMQ_EVENTS`, which takes in libzmq's "readable" command and so empties
    /// the descriptor while the message waits. The reactor must still see it before it blocks
    /// (else it would sleep until the next message, or forever).
    @Test func aMessageWhoseSignalTheTurnConsumedIsStillDelivered() async throws {
        let context = try ZMQContext()
        // An idle poll of an hour: a reactor that blocked with the message waiting would not see
        // it before the test's safety timeout.
        let reactor = Reactor(name: "reactor-reader-edge", idleWake: Self.idleWake)
        let received = Received()
        let pair = try start(reactor, context: context, name: "reader-edge", received: received)
        defer {
            try? reactor.sync { pair.value.close() }
            reactor.stop()
            try? context.terminate(timeout: .seconds(1))
        }
        let sawReadable = Mutex(false)
        let descriptorQuiet = Mutex(false)
        try reactor.sync {
            _ = try pair.value.sender.send("edge")
            let events = try pair.value.receiver.events
            sawReadable.withLock { $0 = events.contains(.readable) }
            // The edge is gone: the descriptor does not show readable any more.
            var entry = pollfd(fd: try pair.value.receiver.fileDescriptor, events: Int16(POLLIN), revents: 0)
            descriptorQuiet.withLock { $0 = poll(&entry, 1, 0) == 0 }
        }
        #expect(sawReadable.withLock { $0 }, "ZMQ_EVENTS reported the message")
        #expect(descriptorQuiet.withLock { $0 }, "the set-up consumed the descriptor's signal, as the test needs")
        #expect(await received.arrivals.wait(), "seen before the loop blocked")
        #expect(received.messages.withLock { $0 } == ["edge"])
    }

    @Test func aSocketClosedWithoutRemovingItsReaderDoesNotStopTheLoop() async throws {
        let context = try ZMQContext()
        let reactor = Reactor(name: "reactor-reader-closed")
        let received = Received()
        let pair = try start(reactor, context: context, name: "reader-closed", received: received)
        defer {
            reactor.stop()
            try? context.terminate(timeout: .seconds(1))
        }
        try reactor.sync { pair.value.close() }
        let ran = Mutex(0)
        for _ in 0..<3 {
            try reactor.sync { ran.withLock { $0 += 1 } }
        }
        #expect(ran.withLock { $0 } == 3, "jobs still run after the reader's socket closed")
        #expect(received.messages.withLock { $0.isEmpty })
    }
}
