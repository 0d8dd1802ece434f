#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking pipe other threads write to, waking the transport's thread out of `zmq_poll`.
struct WakePipe: Sendable {
    /// The read end, polled by the transport's thread.
    let fileDescriptor: Int32
    private let writeEnd: Int32

    init() {
        var fds: [Int32] = [0, 0]
        let result = pipe(&fds)
        precondition(result == 0, "pipe failed: errno \(errno)")
        for fd in fds {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        fileDescriptor = fds[0]
        writeEnd = fds[1]
    }

    /// Makes the read end readable (any thread); a full pipe already means "awake".
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe after a wake-up (the transport's thread).
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(fileDescriptor, &buffer, buffer.count) > 0 {}
    }

    func close() {
        _ = Glibc.close(fileDescriptor)
        _ = Glibc.close(writeEnd)
    }
}
