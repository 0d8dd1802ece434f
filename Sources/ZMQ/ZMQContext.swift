import CZMQ
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A libzmq context: the owner of I/O threads and the factory of sockets.
///
/// A context is safe to share between threads and tasks (libzmq: "ØMQ contexts are thread safe
/// and may be shared among as many application threads as necessary"); sockets are not, see
/// ``ZMQSocket``.
///
/// ## Shutdown without hangs
/// `zmq_ctx_term` blocks until every socket of the context is closed, and then until queued
/// outgoing messages are flushed for up to each socket's linger period. This layer removes both
/// ways to hang:
/// * every socket is created with linger 0 (and the context with `ZMQ_BLOCKY` off), so queued
///   messages never delay termination;
/// * the context counts its open sockets, and every ``ZMQSocket`` keeps its context alive, so the
///   context is only ever terminated when no socket is left.
///
/// The order for a clean shutdown:
/// 1. set your own stop flag, then call ``shutdown()``: every blocking call on any socket of this
///    context returns with ``ZMQError/Code/contextTerminated`` (`ETERM`);
/// 2. each owner thread closes its own sockets (``ZMQSocket/close()``) and exits its loop;
/// 3. join the threads and call ``terminate(timeout:)``, which waits (bounded) for the last
///    sockets and then runs `zmq_ctx_term`.
///
/// ```swift
/// let context = try ZMQContext(ioThreads: 1, maxSockets: 65_536)
/// let socket = try context.socket(.sub)
/// // … owner thread uses the socket …
/// context.shutdown()
/// socket.close()
/// try context.terminate()
/// ```
///
/// If a context is released without ``terminate(timeout:)``, its `deinit` terminates it: that is
/// safe because sockets retain their context, so by then every socket is closed.
public final class ZMQContext: @unchecked Sendable {
    // @unchecked Sendable, proven: `handle` is immutable after init and libzmq guarantees that
    // a context may be used from any number of threads at once (zmq_ctx_*, zmq_socket); the only
    // mutable Swift state, `state`, lives in a Mutex. The one call that must not race with others,
    // zmq_ctx_term, runs only once `state` says no socket is open and none can be created.
    let handle: UnsafeMutableRawPointer
    private let state = Mutex(State())

    private struct State {
        var openSockets = 0
        var isShutDown = false
        var isTerminated = false
    }

    /// The default socket limit used by ``init(ioThreads:maxSockets:)`` (libzmq's own is 1023).
    public static let defaultMaxSockets = 65_536

    /// Creates a context.
    ///
    /// - Parameters:
    ///   - ioThreads: libzmq I/O threads (`ZMQ_IO_THREADS`); one is enough for ~1 GB/s.
    ///   - maxSockets: the socket limit (`ZMQ_MAX_SOCKETS`, libzmq default 1023). Clamped to the
    ///     build's `ZMQ_SOCKET_LIMIT` (65535 with epoll). Closed sockets count until libzmq's
    ///     reaper has finished them.
    /// - Throws: ``ZMQError`` if libzmq rejects a setting.
    public init(ioThreads: Int = 1, maxSockets: Int = ZMQContext.defaultMaxSockets) throws(ZMQError) {
        handle = try ZMQCall.checkPointer("zmq_ctx_new", operation: "create context") { zmq_ctx_new() }
        do {
            let limit = Int(zmq_ctx_get(handle, ZMQ_SOCKET_LIMIT))
            let sockets = Int32(clamping: limit > 0 ? min(maxSockets, limit) : maxSockets)
            _ = try ZMQCall.check("zmq_ctx_set", operation: "set context maxSockets \(sockets)") {
                zmq_ctx_set(handle, ZMQ_MAX_SOCKETS, sockets)
            }
            _ = try ZMQCall.check("zmq_ctx_set", operation: "set context ioThreads \(ioThreads)") {
                zmq_ctx_set(handle, ZMQ_IO_THREADS, Int32(clamping: ioThreads))
            }
            // New sockets get linger 0; zmq_ctx_term does not wait for unsent messages.
            _ = try ZMQCall.check("zmq_ctx_set", operation: "set context blocky 0") {
                zmq_ctx_set(handle, ZMQ_BLOCKY, 0)
            }
        } catch {
            zmq_ctx_term(handle)
            throw error
        }
    }

    /// The effective socket limit (`ZMQ_MAX_SOCKETS`).
    public var maxSockets: Int { Int(zmq_ctx_get(handle, ZMQ_MAX_SOCKETS)) }

    /// The number of I/O threads (`ZMQ_IO_THREADS`).
    public var ioThreads: Int { Int(zmq_ctx_get(handle, ZMQ_IO_THREADS)) }

    /// Sockets created from this context and not yet closed.
    public var openSocketCount: Int { state.withLock { $0.openSockets } }

    /// Creates a socket of the given kind; see ``ZMQSocket/init(_:kind:)``.
    public func socket(_ kind: ZMQSocketKind) throws(ZMQError) -> ZMQSocket {
        try ZMQSocket(self, kind: kind)
    }

    /// Wakes every blocked call on this context's sockets with ``ZMQError/Code/contextTerminated``.
    ///
    /// Never blocks and may be called any number of times from any thread. Afterwards new
    /// sockets cannot be created and every operation on existing ones fails with `ETERM`; their
    /// owners should close them. Call ``terminate(timeout:)`` once they have.
    public func shutdown() {
        let wasShutDown = state.withLock { state in
            defer { state.isShutDown = true }
            return state.isShutDown || state.isTerminated
        }
        if !wasShutDown { zmq_ctx_shutdown(handle) }
    }

    /// Shuts the context down and releases it, waiting at most `timeout` for open sockets.
    ///
    /// Calls ``shutdown()``, waits until every socket of this context has been closed by its
    /// owner, then runs `zmq_ctx_term`, which returns promptly because all sockets linger 0.
    /// Calling it again after success does nothing.
    ///
    /// - Parameter timeout: how long to wait for owners to close their sockets.
    /// - Throws: ``ZMQError/Code/socketsStillOpen`` if sockets are still open after `timeout`;
    ///   the context stays shut down and is terminated later by `deinit` (which runs only after
    ///   the last socket is gone).
    public func terminate(timeout: Duration = .seconds(5)) throws(ZMQError) {
        shutdown()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let (canTerminate, open) = state.withLock { state -> (Bool, Int) in
                if state.isTerminated { return (false, 0) }
                if state.openSockets == 0 {
                    state.isTerminated = true
                    return (true, 0)
                }
                return (false, state.openSockets)
            }
            if canTerminate { break }
            if open == 0 { return }  // terminated earlier
            if clock.now >= deadline {
                throw ZMQError(
                    code: .socketsStillOpen,
                    errno: 0,
                    message: "\(open) socket(s) still open after \(timeout)",
                    function: "zmq_ctx_term",
                    operation: "terminate context"
                )
            }
            usleep(1_000)
        }
        _ = try ZMQCall.check("zmq_ctx_term", operation: "terminate context") { zmq_ctx_term(handle) }
    }

    deinit {
        // Every socket retains its context, so all sockets are closed here: zmq_ctx_term cannot hang.
        let terminated = state.withLock { $0.isTerminated }
        if !terminated {
            while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
        }
    }

    // MARK: socket registry (used by ZMQSocket)

    /// Creates a raw socket while holding the registry lock, so it cannot race with termination.
    func makeSocketHandle(type: Int32, kind: ZMQSocketKind) throws(ZMQError) -> UnsafeMutableRawPointer {
        let result: Result<UnsafeMutableRawPointer, ZMQError> = state.withLock { state in
            if state.isTerminated || state.isShutDown {
                return .failure(ZMQCall.error(errno: CZMQ.ETERM, function: "zmq_socket", operation: "create \(kind) socket"))
            }
            do throws(ZMQError) {
                let socket = try ZMQCall.checkPointer("zmq_socket", operation: "create \(kind) socket") {
                    zmq_socket(handle, type)
                }
                state.openSockets += 1
                return .success(socket)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Records that a socket created by ``makeSocketHandle(type:kind:)`` was closed.
    func socketDidClose() {
        state.withLock { $0.openSockets -= 1 }
    }
}
