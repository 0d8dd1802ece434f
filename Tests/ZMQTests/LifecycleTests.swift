import Foundation
import Synchronization
import Testing
import ZMQ

@Suite struct LifecycleTests {
    @Test func receiveTimeoutThrowsWouldBlock() throws {
        let context = try ZMQContext()
        let sub = try context.socket(.sub)
        defer { sub.close() }
        try sub.setOption(.receiveTimeout, .milliseconds(50))
        #expect(try sub.option(.receiveTimeout) == .milliseconds(50))
        try sub.subscribe("")
        let start = ContinuousClock.now
        let error = #expect(throws: ZMQError.self) { try sub.receiveMultipart() }
        #expect(error?.code == .wouldBlock)
        #expect(ContinuousClock.now - start < .seconds(2))
        // The non-blocking form reports "nothing" without an error.
        #expect(try sub.tryReceiveMultipart() == nil)
        #expect(try sub.tryReceive { _ in 1 } == nil)
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
        let blocked = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do throws(ZMQError) {
                let pull = try context.socket(.pull)
                defer { pull.close() }  // the owner closes its socket
                blocked.signal()
                _ = try pull.receiveMultipart()
            } catch {
                outcome.withLock { $0 = error.code }
            }
            finished.signal()
        }
        #expect(blocked.wait(timeout: .now() + 5) == .success)
        usleep(20_000)  // let it enter zmq_msg_recv
        let start = ContinuousClock.now
        context.shutdown()
        #expect(finished.wait(timeout: .now() + 5) == .success)
        #expect(outcome.withLock { $0 } == .contextTerminated)
        let error = #expect(throws: ZMQError.self) { try sub.receiveMultipart() }
        #expect(error?.code == .contextTerminated)
        push.close()
        pub.close()
        sub.close()
        try context.terminate(timeout: .seconds(2))
        #expect(ContinuousClock.now - start < .seconds(2))
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
        // Warm up: libzmq starts its I/O and reaper threads (and their fds) lazily.
        for _ in 0..<10 {
            let sub = try context.socket(.sub)
            try sub.connect(endpoint)
            sub.close()
        }
        _ = Support.eventually(timeout: .milliseconds(200)) { false }
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
