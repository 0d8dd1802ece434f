import CZMQ

extension ZMQSocket {
    /// Sends one frame (copied into a libzmq message by `zmq_send`).
    ///
    /// Use `flags: .more` for every frame but the last of a multipart message.
    ///
    /// Inlined into the caller: a send that succeeds costs the `zmq_send` call and a test, with no
    /// Swift call frame around it (the per-frame cost of a publishing loop).
    /// - Returns: `true` when queued; `false` only with ``ZMQSendFlags/dontWait`` when the
    ///   message cannot be queued now (would block). PUB/XPUB never block: at the HWM they drop.
    /// - Throws: ``ZMQError/Code/wouldBlock`` when a blocking send hits ``ZMQSocketOption/sendTimeout``;
    ///   ``ZMQError/Code/contextTerminated``, ``ZMQError/Code/hostUnreachable``, ….
    @inlinable
    @inline(__always)
    @discardableResult
    public func send(_ frame: UnsafeRawBufferPointer, flags: ZMQSendFlags = []) throws(ZMQError) -> Bool {
        // Fast path: one libzmq call and a test. A closed socket or a failure continues out of line.
        if let handle, Self.rawSend(handle, frame.baseAddress, frame.count, flags.rawValue) >= 0 { return true }
        return try sendFailed(frame, flags: flags)
    }

    /// `zmq_send`, reachable from the inlined fast path (clients of this module do not see CZMQ).
    @usableFromInline
    static func rawSend(_ handle: UnsafeMutableRawPointer, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int32 {
        zmq_send(handle, bytes, count, flags)
    }

    /// Sends one frame from a byte array; see ``send(_:flags:)-(UnsafeRawBufferPointer,_)``.
    @inline(__always)
    @discardableResult
    public func send(_ frame: [UInt8], flags: ZMQSendFlags = []) throws(ZMQError) -> Bool {
        if let handle, frame.withUnsafeBytes({ zmq_send(handle, $0.baseAddress, $0.count, flags.rawValue) }) >= 0 {
            return true
        }
        return try sendFailed(flags) { handle in
            frame.withUnsafeBytes { zmq_send(handle, $0.baseAddress, $0.count, flags.rawValue) }
        }
    }

    /// Sends one frame holding the UTF-8 bytes of `frame`; see ``send(_:flags:)-(UnsafeRawBufferPointer,_)``.
    @inline(__always)
    @discardableResult
    public func send(_ frame: String, flags: ZMQSendFlags = []) throws(ZMQError) -> Bool {
        var frame = frame
        if let handle, frame.withUTF8({ zmq_send(handle, $0.baseAddress, $0.count, flags.rawValue) }) >= 0 {
            return true
        }
        return try sendFailed(flags) { handle in
            frame.withUTF8 { zmq_send(handle, $0.baseAddress, $0.count, flags.rawValue) }
        }
    }

    /// The rest of a send whose fast path did not succeed, out of line so the fast path stays a
    /// call and a test: either the socket is closed (no libzmq call was made), or `zmq_send` failed
    /// just now and errno still says why. The errno funnel decides; `send` repeats the call after
    /// `EINTR`.
    /// - Returns: `true` once a retry queued the frame; `false` with ``ZMQSendFlags/dontWait`` when
    ///   it would block.
    @usableFromInline
    @inline(never)
    func sendFailed(_ frame: UnsafeRawBufferPointer, flags: ZMQSendFlags) throws(ZMQError) -> Bool {
        try sendFailed(flags) { zmq_send($0, frame.baseAddress, frame.count, flags.rawValue) }
    }

    /// See ``sendFailed(_:flags:)``; `send` makes the libzmq call again after `EINTR`.
    private func sendFailed(
        _ flags: ZMQSendFlags,
        retrying send: (UnsafeMutableRawPointer) -> Int32
    ) throws(ZMQError) -> Bool {
        let handle = try liveHandle("send")
        let kind = self.kind
        let operation = { "send on \(kind) socket" }
        if try ZMQCall.afterFailure("zmq_send", operation: operation, allowingWouldBlock: true, retrying: { send(handle) }) != nil {
            return true
        }
        if flags.contains(.dontWait) { return false }
        throw ZMQCall.error(errno: EAGAIN, function: "zmq_send", operation: operation())
    }

    /// Sends a multipart message: every frame but the last is sent with ``ZMQSendFlags/more``.
    ///
    /// libzmq delivers multipart messages atomically, so with ``ZMQSendFlags/dontWait`` either
    /// all frames are queued or (if the first frame would block) none.
    /// - Returns: `false` only with ``ZMQSendFlags/dontWait`` when nothing could be queued.
    @discardableResult
    public func sendMultipart(_ frames: [[UInt8]], flags: ZMQSendFlags = []) throws(ZMQError) -> Bool {
        precondition(!frames.isEmpty, "a message has at least one frame")
        let base = flags.subtracting(.more)
        for (index, frame) in frames.enumerated() {
            let last = index == frames.count - 1
            let frameFlags = last ? flags : base.union(.more)
            if try !send(frame, flags: frameFlags) {
                precondition(index == 0, "Internal inconsistency: libzmq refused a later frame of a multipart message")
                return false
            }
        }
        return true
    }

    /// Sends a multipart message of UTF-8 strings; see ``sendMultipart(_:flags:)-([[UInt8]],_)``.
    @discardableResult
    public func sendMultipart(_ frames: [String], flags: ZMQSendFlags = []) throws(ZMQError) -> Bool {
        try sendMultipart(frames.map { Array($0.utf8) }, flags: flags)
    }
}
