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
///
/// Every check is split in two: the inlined fast path calls libzmq once and tests the result;
/// everything after a failure (reading errno, the EINTR retry loop, building the error) lives in
/// ``afterFailure(_:operation:allowingWouldBlock:retrying:)``, out of line. The per-message calls
/// (`zmq_send`, `zmq_msg_recv`) make their first attempt in the socket's own fast path and hand a
/// failure to that same function, so a successful send or receive costs the call and a test, and
/// the hot loop carries no error-building code (fewer saved registers, no captured `self`).
enum ZMQCall {
    /// Calls `body` once and returns its non-negative result; a failure continues in
    /// ``afterFailure(_:operation:allowingWouldBlock:retrying:)`` (EINTR retried, anything else thrown).
    @inline(__always)
    static func check(
        _ function: StaticString,
        operation: @autoclosure () -> String = "",
        _ body: () -> Int32
    ) throws(ZMQError) -> Int32 {
        let result = body()
        if _fastPath(result >= 0) { return result }
        guard let result = try afterFailure(function, operation: operation, allowingWouldBlock: false, retrying: body) else {
            preconditionFailure("Internal inconsistency: would-block reported where it is not allowed")
        }
        return result
    }

    /// Like ``check(_:operation:_:)`` but returns `nil` when the call would block (`EAGAIN`).
    @inline(__always)
    static func checkAllowingWouldBlock(
        _ function: StaticString,
        operation: @autoclosure () -> String = "",
        _ body: () -> Int32
    ) throws(ZMQError) -> Int32? {
        let result = body()
        if _fastPath(result >= 0) { return result }
        return try afterFailure(function, operation: operation, allowingWouldBlock: true, retrying: body)
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

    /// The slow path of ``check(_:operation:_:)`` and ``checkAllowingWouldBlock(_:operation:_:)``,
    /// entered right after `body` failed.
    ///
    /// Reads `zmq_errno()` first, before anything else can overwrite errno. `EINTR` calls `body`
    /// again (and again); `EAGAIN` returns nil when `allowingWouldBlock`; anything else throws.
    @inline(never)
    static func afterFailure(
        _ function: StaticString,
        operation: () -> String,
        allowingWouldBlock: Bool,
        retrying body: () -> Int32
    ) throws(ZMQError) -> Int32? {
        while true {
            let errno = zmq_errno()
            if errno == EAGAIN && allowingWouldBlock { return nil }
            if errno != EINTR { throw error(errno: errno, function: function, operation: operation()) }
            let result = body()
            if result >= 0 { return result }
        }
    }

    /// Builds the error for `errno` as reported by `function`.
    @inline(never)
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
    ///
    /// `operation` is an autoclosure so that callers' hot paths never format the text.
    @inline(never)
    static func closedError(_ operation: @autoclosure () -> String) -> ZMQError {
        ZMQError(
            code: .socketClosed,
            errno: ENOTSOCK,
            message: "Socket operation on closed socket",
            function: "ZMQSocket",
            operation: operation()
        )
    }
}
