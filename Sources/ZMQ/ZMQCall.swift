import CZMQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The single funnel every libzmq call goes through (like swift-nio's `System.swift`).
///
/// * `EINTR` is retried: libzmq documents every blocking call (`zmq_msg_recv`, `zmq_send`,
///   `zmq_poll`, `zmq_ctx_term`) as restartable after a signal. A shutdown still ends the loop,
///   because `zmq_ctx_shutdown` makes the retried call fail with `ETERM`.
/// * `EAGAIN` becomes "would block": ``checkAllowingWouldBlock(_:operation:_:)`` returns `nil`
///   for non-blocking paths; ``check(_:operation:_:)`` throws ``ZMQError/Code/wouldBlock``
///   (a send/receive timeout expired).
/// * everything else, including `ETERM`, is thrown as a ``ZMQError`` carrying errno,
///   `zmq_strerror`, the function name and the operation.
enum ZMQCall {
    /// Runs `body` until it does not fail with `EINTR`; returns its non-negative result or throws.
    @inline(__always)
    static func check(
        _ function: StaticString,
        operation: @autoclosure () -> String = "",
        _ body: () -> Int32
    ) throws(ZMQError) -> Int32 {
        while true {
            let result = body()
            if result >= 0 { return result }
            let errno = zmq_errno()
            if errno == EINTR { continue }
            throw error(errno: errno, function: function, operation: operation())
        }
    }

    /// Like ``check(_:operation:_:)`` but returns `nil` when the call would block (`EAGAIN`).
    @inline(__always)
    static func checkAllowingWouldBlock(
        _ function: StaticString,
        operation: @autoclosure () -> String = "",
        _ body: () -> Int32
    ) throws(ZMQError) -> Int32? {
        while true {
            let result = body()
            if result >= 0 { return result }
            let errno = zmq_errno()
            if errno == EINTR { continue }
            if errno == EAGAIN { return nil }
            throw error(errno: errno, function: function, operation: operation())
        }
    }

    /// For calls returning a pointer (`zmq_socket`, `zmq_ctx_new`): retries `EINTR`, throws on `NULL`.
    @inline(__always)
    static func checkPointer(
        _ function: StaticString,
        operation: @autoclosure () -> String = "",
        _ body: () -> UnsafeMutableRawPointer?
    ) throws(ZMQError) -> UnsafeMutableRawPointer {
        while true {
            if let pointer = body() { return pointer }
            let errno = zmq_errno()
            if errno == EINTR { continue }
            throw error(errno: errno, function: function, operation: operation())
        }
    }

    /// Builds the error for `errno` as reported by `function`.
    static func error(errno: Int32, function: StaticString, operation: String) -> ZMQError {
        let name = "\(function)"
        let message = String(cString: zmq_strerror(errno))
        return ZMQError(
            code: ZMQErrno.code(for: errno, function: name),
            errno: errno,
            message: message,
            function: name,
            operation: operation
        )
    }

    /// The error thrown when a socket is used after ``ZMQSocket/close()``.
    static func closedError(_ operation: String) -> ZMQError {
        ZMQError(
            code: .socketClosed,
            errno: ENOTSOCK,
            message: "Socket operation on closed socket",
            function: "ZMQSocket",
            operation: operation
        )
    }
}
