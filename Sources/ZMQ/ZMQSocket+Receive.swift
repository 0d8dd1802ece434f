import CZMQ

extension ZMQSocket {
    /// Receives one whole multipart message into the socket's frame slots.
    /// Returns the frame count, or nil when `dontWait` is set and nothing is queued.
    /// The frames are then described by `frames.buffers[0..<count]`.
    @usableFromInline
    func receiveFrames(dontWait: Bool) throws(ZMQError) -> Int? {
        let handle = try liveHandle("receive")
        let flags = dontWait ? ZMQ_DONTWAIT : 0
        var count = 0
        while true {
            let message = frames.slot(count)
            let received = try ZMQCall.checkAllowingWouldBlock("zmq_msg_recv", operation: "receive on \(kind) socket") {
                zmq_msg_recv(message, handle, flags)
            }
            guard received != nil else {
                // Frames of one message arrive together, so only the first frame can be missing.
                if count == 0 && dontWait { return nil }
                throw ZMQCall.error(errno: EAGAIN, function: "zmq_msg_recv", operation: "receive on \(kind) socket")
            }
            frames.didReceive(count, message)
            count += 1
            if zmq_msg_more(message) == 0 { return count }
        }
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
    public func receive<Result>(_ body: (ZMQFrames) throws -> Result) throws -> Result {
        let count = try receiveFrames(dontWait: false)!
        return try body(ZMQFrames(buffers: frames.buffers, count: count))
    }

    /// Like ``receive(_:)`` but never blocks: returns nil when no message is queued.
    @inlinable
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
