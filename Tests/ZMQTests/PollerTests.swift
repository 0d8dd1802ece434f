import Foundation
import Testing
import ZMQ

@Suite struct PollerTests {
    @Test func wakesOnSocket() throws {
        let context = try ZMQContext()
        let pull = try context.socket(.pull)
        let push = try context.socket(.push)
        defer { push.close(); pull.close() }
        let endpoint = Support.inprocEndpoint("poll")
        try pull.bind(endpoint)
        try push.connect(endpoint)
        let poller = ZMQPoller()
        let token = try poller.register(pull, for: .readable)

        #expect(try poller.poll(timeout: .zero) == 0)
        try push.send("wake")
        #expect(try poller.poll(timeout: .seconds(5)) == 1)
        #expect(poller.isReadable(token))
        #expect(try pull.events.contains(.readable))
        #expect(try pull.tryReceiveMultipart() == [Support.bytes("wake")])
        #expect(try pull.tryReceiveMultipart() == nil)
    }

    @Test func wakesOnRawFileDescriptorAndTimesOut() throws {
        let context = try ZMQContext()
        let sub = try context.socket(.sub)
        defer { sub.close() }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }

        let poller = ZMQPoller(capacity: 1)  // also exercises growth
        let socketToken = try poller.register(sub)
        let wakeToken = poller.register(fileDescriptor: fds[0], for: .readable)

        // Nothing ready: the poll waits its timeout (less 5 ms of rounding), then reports none.
        let start = ContinuousClock.now
        #expect(try poller.poll(timeout: .milliseconds(30)) == 0)
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(25), "\(elapsed)")

        // Another thread writes the wake-up fd once this one is blocked in the poll; the poll
        // returns then, long before its timeout.
        let writeEnd = fds[1]
        let polling = try #require(Support.currentThreadID())
        let written = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            if Support.waitUntilBlockedInPoll(thread: polling) {
                var byte: UInt8 = 1
                _ = write(writeEnd, &byte, 1)
            }
            written.signal()
        }
        #expect(try poller.poll(timeout: Support.safetyTimeout) == 1)
        #expect(poller.isReadable(wakeToken))
        #expect(!poller.isReadable(socketToken))
        #expect(written.wait(timeout: .now() + .seconds(Support.safetyTimeoutSeconds)) == .success)
    }

    @Test func socketFileDescriptorIsUsable() throws {
        let context = try ZMQContext()
        let socket = try context.socket(.dealer)
        defer { socket.close() }
        let fd = try socket.fileDescriptor
        #expect(fd >= 0)
        let poller = ZMQPoller()
        poller.register(fileDescriptor: fd)
        _ = try poller.poll(timeout: .zero)  // a valid fd polls without error
        #expect(try socket.events.contains(.readable) == false)
    }

    @Test func closedSocketIsReportedNotPolled() throws {
        let context = try ZMQContext()
        let socket = try context.socket(.pull)
        let poller = ZMQPoller()
        try poller.register(socket)
        socket.close()
        let error = #expect(throws: ZMQError.self) { try poller.poll(timeout: .zero) }
        #expect(error?.code == .socketClosed)
    }
}
