import Foundation
import SharedTestSupport
import Testing
import ZMQ

/// Bounded waits and small helpers shared by the ZMQ tests. Every wait has a deadline.
enum Support {
    /// How long a test waits for what must come before it fails instead of hanging: generous, so
    /// a loaded machine never reaches it.
    static let safetyTimeout = Duration.seconds(safetyTimeoutSeconds)
    static let safetyTimeoutSeconds = 30

    /// A unique ipc endpoint under /tmp (parallel tests never share one); its file is removed
    /// when the test process exits.
    static func ipcEndpoint(_ name: String) -> String {
        IPCTestEndpoint.make("zmqtests-\(getpid())-\(name)-\(UInt32.random(in: 0...UInt32.max))")
    }

    /// A unique inproc endpoint.
    static func inprocEndpoint(_ name: String) -> String {
        "inproc://\(name)-\(UInt64.random(in: 0...UInt64.max))"
    }

    /// Binds `socket` to an ephemeral loopback port and returns the resolved endpoint.
    static func bindLoopback(_ socket: ZMQSocket) throws -> String {
        try socket.bind("tcp://127.0.0.1:*")
        return try #require(try socket.lastEndpoint)
    }

    /// Entries in /proc/self/fd.
    static func openFileDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    /// Slow-joiner handshake: repeats a sync message on `pub` until `sub` receives it.
    ///
    /// `sub` subscribes to a fresh sync topic last; subscriptions travel in order on one pipe, so
    /// receiving it proves every earlier (un)subscription has reached the publisher. The topic is
    /// unique per call, so stale sync messages of an earlier round cannot fake a handshake.
    /// Other messages arriving meanwhile are discarded.
    static func synchronize(pub: ZMQSocket, sub: ZMQSocket, timeout: Duration = .seconds(5)) throws {
        let topic = "sync/\(UInt64.random(in: 0...UInt64.max))"
        try sub.subscribe(topic)
        let poller = ZMQPoller()
        let token = try poller.register(sub)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            try pub.sendMultipart([topic, ""], flags: .dontWait)
            if try poller.poll(timeout: .milliseconds(2)) > 0, poller.isReadable(token) {
                while let frames = try sub.tryReceiveMultipart() {
                    if frames.first == Array(topic.utf8) {
                        try sub.unsubscribe(topic)
                        while try sub.tryReceiveMultipart() != nil {}
                        return
                    }
                }
            }
        }
        try sub.unsubscribe(topic)
        Issue.record("publisher and subscriber did not synchronize within \(timeout)")
        throw CancellationError()
    }

    /// Waits (bounded) until `condition` holds, polling every millisecond.
    static func eventually(timeout: Duration = .seconds(5), _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            usleep(1_000)
        }
        return try condition()
    }

    /// The calling thread's id in the kernel (the last part of `/proc/thread-self`).
    static func currentThreadID() -> String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"))?.split(separator: "/").last.map(String.init)
    }

    /// Waits (bounded) until thread `id` of this process sleeps in the kernel's poll, as the
    /// kernel reports it (`/proc/self/task/ID/wchan`): blocked in `zmq_poll` or a blocking
    /// receive, not on its way there. The kernel signals nothing when a thread blocks, so this
    /// polls.
    static func waitUntilBlockedInPoll(thread id: String, timeout: Duration = safetyTimeout) -> Bool {
        eventually(timeout: timeout) { procText("/proc/self/task/\(id)/wchan")?.contains("poll") == true }
    }

    /// A /proc file's text, read with read(2) (these files report a size of 0).
    static func procText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(fd, &buffer, buffer.count)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
    }

    /// Runs `body` on a new thread and waits at most `timeout` for it; false if it did not finish.
    static func runOnThread(timeout: Duration, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        let (seconds, attoseconds) = timeout.components
        let nanos = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        return done.wait(timeout: .now() + .nanoseconds(Int(nanos))) == .success
    }

    /// Converts a string to bytes.
    static func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }
}
