import CZMQ

extension ZMQSocket {
    /// Receives one whole multipart message into the socket's frame slots.
    /// Returns the frame count, or nil when `dontWait` is set and nothing is queued.
    /// The frames are then described by `frames.buffers[0..<count]`.
    ///
    /// Per frame it makes the three libzmq calls a zero-copy multipart receive needs and no more:
    /// `zmq_msg_recv` (whose result is the frame's size), `zmq_msg_data` and the MORE flag.
    /// Inlined into the caller (through ``receive(_:)``), so a message costs those calls and a
    /// short loop, with no Swift call frame around it; every failure leaves through
    /// ``receiveFailed(_:handle:flags:frame:)``.
    @inlinable
    @inline(__always)
    func receiveFrames(dontWait: Bool) throws(ZMQError) -> Int? {
        guard let handle else { throw receiveOnClosedSocket() }
        let flags = dontWait ? ZMQSendFlags.dontWait.rawValue : 0  // ZMQ_DONTWAIT, the same bit for receive
        let frames = self.frames
        let limit = frameLimit
        var count = 0
        while true {
            // Past the limit every further frame lands in slot `limit` (see `receiveFrameLimit`).
            let index = min(count, limit)
            let message = frames.slot(index)
            var size = ZMQFramePool.receive(message, from: handle, flags: flags)
            if _slowPath(size < 0) {
                guard let retried = try receiveFailed(message, handle: handle, flags: flags, frame: count) else {
                    return nil
                }
                size = retried
            }
            frames.didReceive(index, message, reportedSize: size)
            count = index + 1
            if !ZMQFramePool.hasMore(message) {
                frames.didReceiveMessage(count)
                return count
            }
        }
    }

    /// The rest of a frame receive that failed just now (errno still says why), out of line: the
    /// errno funnel retries `EINTR`; a would-block is nil for a non-blocking receive's first frame
    /// and otherwise an expired receive timeout.
    @usableFromInline
    @inline(never)
    func receiveFailed(
        _ message: UnsafeMutableRawPointer,
        handle: UnsafeMutableRawPointer,
        flags: Int32,
        frame index: Int
    ) throws(ZMQError) -> Int32? {
        let kind = self.kind
        let operation = { "receive on \(kind) socket" }
        let retried = try ZMQCall.afterFailure("zmq_msg_recv", operation: operation, allowingWouldBlock: true) {
            ZMQFramePool.receive(message, from: handle, flags: flags)
        }
        if let retried { return retried }
        // Frames of one message arrive together, so only the first frame can be missing.
        if index == 0 && flags & ZMQ_DONTWAIT != 0 { return nil }
        throw ZMQCall.error(errno: EAGAIN, function: "zmq_msg_recv", operation: operation())
    }

    /// The error for a receive on a closed socket (out of line: the inlined loop only tests).
    @usableFromInline
    @inline(never)
    func receiveOnClosedSocket() -> ZMQError {
        ZMQCall.closedError("receive")
    }

    /// Receives the next multipart message and passes its frames to `body` without copying.
    ///
    /// The hot-loop form: nothing is allocated per message in steady state. The frames are valid
    /// only inside `body` (see ``ZMQFrames``). Blocks until a message arrives, the
    /// ``ZMQSocketOption/receiveTimeout`` expires or the context shuts down.
    ///
    /// ```swift
    /// while running {
    ///     try sub.receive { frames in counter += frames[1].count }
    /// }
    /// ```
    /// - Returns: what `body` returns.
    /// - Throws: ``ZMQError`` (``ZMQError/Code/wouldBlock`` on timeout,
    ///   ``ZMQError/Code/contextTerminated`` on shutdown) or what `body` throws.
    @inlinable
    @inline(__always)
    public func receive<Result>(_ body: (ZMQFrames) throws -> Result) throws -> Result {
        let count = try receiveFrames(dontWait: false)!
        return try body(ZMQFrames(buffers: frames.buffers, count: count))
    }

    /// Like ``receive(_:)`` but never blocks: returns nil when no message is queued.
    @inlinable
    @inline(__always)
    public func tryReceive<Result>(_ body: (ZMQFrames) throws -> Result) throws -> Result? {
        guard let count = try receiveFrames(dontWait: true) else { return nil }
        return try body(ZMQFrames(buffers: frames.buffers, count: count))
    }

    /// Receives the next multipart message as copied frames (blocking).
    ///
    /// - Throws: ``ZMQError/Code/wouldBlock`` when ``ZMQSocketOption/receiveTimeout`` expires.
    public func receiveMultipart() throws(ZMQError) -> [[UInt8]] {
        let count = try receiveFrames(dontWait: false)!
        return ZMQFrames(buffers: frames.buffers, count: count).allBytes()
    }

    /// Receives the next multipart message as copied frames, or nil if none is queued (non-blocking).
    public func tryReceiveMultipart() throws(ZMQError) -> [[UInt8]]? {
        guard let count = try receiveFrames(dontWait: true) else { return nil }
        return ZMQFrames(buffers: frames.buffers, count: count).allBytes()
    }
}
