import Foundation
import Synchronization
import Testing
import ZMQ

@Suite struct LifecycleTests {
    /// A blocking receive with a timeout waits that long (not returning at once as a
    /// non-blocking one does) and then reports wouldBlock; on a thread of its own, so a receive
    /// that ignored the timeout fails the test at `Support.safetyTimeout` instead of hanging it.
    @Test func receiveTimeoutThrowsWouldBlock() throws {
        struct Outcome {
            var timeout: Duration?
            var failure: ZMQError.Code?
            var waited = Duration.zero
            var nothingQueued = false
        }
        let context = try ZMQContext()
        let outcome = Mutex<Result<Outcome, any Error>?>(nil)
        let finished = Support.runOnThread(timeout: Support.safetyTimeout) {
            let result = Result { () throws -> Outcome in
                var outcome = Outcome()
                let sub = try context.socket(.sub)
                defer { sub.close() }
                try sub.setOption(.receiveTimeout, .milliseconds(50))
                outcome.timeout = try sub.option(.receiveTimeout)
                try sub.subscribe("")
                let start = ContinuousClock.now
                do throws(ZMQError) {
                    _ = try sub.receiveMultipart()
                } catch {
                    outcome.failure = error.code
                }
                outcome.waited = ContinuousClock.now - start
                // The non-blocking forms report "nothing" without an error.
                outcome.nothingQueued = try sub.tryReceiveMultipart() == nil && sub.tryReceive { _ in 1 } == nil
                return outcome
            }
            outcome.withLock { $0 = result }
        }
        #expect(finished, "the receive gave up")
        let result = try #require(outcome.withLock { $0 }).get()
        #expect(result.timeout == .milliseconds(50))
        #expect(result.failure == .wouldBlock)
        // Less 10 ms of libzmq's rounding to whole milliseconds.
        #expect(result.waited >= .milliseconds(40), "waited \(result.waited)")
        #expect(result.nothingQueued)
    }

    @Test func closeIsIdempotentAndLaterUseThrows() throws {
        let context = try ZMQContext()
        let socket = try context.socket(.pair)
        #expect(context.openSocketCount == 1)
        socket.close()
        socket.close()
        #expect(socket.isClosed)
        #expect(context.openSocketCount == 0)
        let error = #expect(throws: ZMQError.self) { try socket.send("x") }
        #expect(error?.code == .socketClosed)
        try context.terminate(timeout: .seconds(1))
        try context.terminate(timeout: .seconds(1))  // second call does nothing
    }

    @Test func shutdownWithQueuedMessagesNeverHangs() throws {
        let context = try ZMQContext()
        // Messages queued towards peers that never read them (linger 0 must discard them).
        let push = try context.socket(.push)
        try push.connect("tcp://127.0.0.1:1")  // nobody listens; messages queue in the pipe
        for _ in 0..<100 { _ = try push.send("queued", flags: .dontWait) }
        let pub = try context.socket(.pub)
        let sub = try context.socket(.sub)
        try pub.setOption(.sendHighWaterMark, 0)
        let endpoint = Support.inprocEndpoint("queued")
        try pub.bind(endpoint)
        try sub.subscribe("")
        try sub.connect(endpoint)
        try Support.synchronize(pub: pub, sub: sub)
        for _ in 0..<10_000 { try pub.sendMultipart(["t", "never read"]) }

        // A thread blocked in receive on its own socket is woken by shutdown with ETERM.
        let outcome = Mutex<ZMQError.Code?>(nil)
        let receiving = Mutex<String?>(nil)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do throws(ZMQError) {
                let pull = try context.socket(.pull)
                defer { pull.close() }  // the owner closes its socket
                receiving.withLock { $0 = Support.currentThreadID() }
                _ = try pull.receiveMultipart()
            } catch {
                outcome.withLock { $0 = error.code }
            }
            finished.signal()
        }
        let thread = Support.eventually(timeout: Support.safetyTimeout) { receiving.withLock { $0 } != nil }
        #expect(thread, "the receiving thread started")
        #expect(
            Support.waitUntilBlockedInPoll(thread: receiving.withLock { $0 } ?? ""), "the receiving thread is blocked in zmq_msg_recv")
        context.shutdown()
        #expect(finished.wait(timeout: .now() + .seconds(Support.safetyTimeoutSeconds)) == .success)
        #expect(outcome.withLock { $0 } == .contextTerminated)
        let error = #expect(throws: ZMQError.self) { try sub.receiveMultipart() }
        #expect(error?.code == .contextTerminated)
        push.close()
        pub.close()
        sub.close()
        // Linger 0: zmq_ctx_term drops the queued messages instead of waiting for them forever.
        // On a thread of its own, so a hang fails the test instead.
        let failure = Mutex<ZMQError?>(nil)
        let terminated = Support.runOnThread(timeout: Support.safetyTimeout) {
            do throws(ZMQError) { try context.terminate() } catch { failure.withLock { $0 = error } }
        }
        #expect(terminated, "the context ended")
        #expect(failure.withLock { $0 } == nil)
    }

    @Test func terminateGivesUpWhileSocketsAreOpen() throws {
        let context = try ZMQContext()
        let socket = try context.socket(.pub)
        let error = #expect(throws: ZMQError.self) { try context.terminate(timeout: .milliseconds(20)) }
        #expect(error?.code == .socketsStillOpen)
        #expect(error.map { String(describing: $0) }?.contains("1 socket(s) still open") == true)
        // After shutdown no new socket can be created.
        let creation = #expect(throws: ZMQError.self) { try context.socket(.sub) }
        #expect(creation?.code == .contextTerminated)
        socket.close()
        try context.terminate(timeout: .seconds(1))
    }

    @Test func releasingEverythingWithoutCloseDoesNotHang() throws {
        // deinit closes the socket; the context's deinit then terminates (sockets retain it).
        let finished = Support.runOnThread(timeout: .seconds(5)) {
            do {
                let context = try ZMQContext()
                let pub = try context.socket(.pub)
                try pub.bind(Support.inprocEndpoint("deinit"))
                let sub = try context.socket(.sub)
                try sub.connect(try pub.lastEndpoint!)
                _ = try pub.send("x")
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        #expect(finished)
    }

    @Test func contextOptions() throws {
        let context = try ZMQContext(ioThreads: 2, maxSockets: 4096)
        #expect(context.maxSockets == 4096)
        #expect(context.ioThreads == 2)
        #expect(try ZMQContext().maxSockets >= 65_535)
    }

    @Test func fileDescriptorsReturnToBaselineAfterCreateCloseCycles() throws {
        let context = try ZMQContext()
        let pub = try context.socket(.pub)
        defer { pub.close() }
        let endpoint = Support.inprocEndpoint("fds")
        try pub.bind(endpoint)
        // libzmq started its I/O and reaper threads (and their fds) with the first socket.
        let baseline = Support.openFileDescriptors()
        for _ in 0..<1_000 {
            let sub = try context.socket(.sub)
            try sub.connect(endpoint)
            try sub.subscribe("x")
            sub.close()
        }
        // zmq_close is asynchronous: the reaper thread releases the fds shortly afterwards.
        // Other tests run in parallel in this process, so wait until the count is back.
        // An inproc pipe is torn down only when the peer (the PUB) processes its commands: poke it.
        let settled = try Support.eventually(timeout: .seconds(10)) {
            _ = try pub.events
            return Support.openFileDescriptors() <= baseline
        }
        #expect(settled, "fds: baseline \(baseline), now \(Support.openFileDescriptors())")
        #expect(context.openSocketCount == 1)
    }
}
