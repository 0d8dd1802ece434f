import CZMQ

extension ZMQSocket {
    /// Sends one frame (copied into a libzmq message by `zmq_send`).
    ///
    /// Use `flags: .more` for every frame but the last of a multipart message.
    /// - Returns: `true` when queued; `false` only with ``ZMQSendFlags/dontWait`` when the
    ///   message cannot be queued now (would block). PUB/XPUB never block: at the HWM they drop.
    /// - Throws: ``ZMQError/Code/wouldBlock`` when a blocking send hits ``ZMQSocketOption/sendTimeout``;
    ///   ``ZMQError/Code/contextTerminated``, ``ZMQError/Code/hostUnreachable``, ….
    @inline(__always)
    @discardableResult
    public func send(_ frame: UnsafeRawBufferPointer, flags: ZMQSendFlags = []) throws(ZMQError) -> Bool {
        let handle = try liveHandle("send")
        let sent = try ZMQCall.checkAllowingWouldBlock("zmq_send", operation: "send on \(kind) socket") {
            zmq_send(handle, frame.baseAddress, frame.count, flags.rawValue)
        }
        if sent != nil { return true }
        if flags.contains(.dontWait) { return false }
        throw ZMQCall.error(errno: EAGAIN, function: "zmq_send", operation: "send on \(kind) socket")
    }

    /// Sends one frame from a byte array; see ``send(_:flags:)-(UnsafeRawBufferPointer,_)``.
    @inline(__always)
    @discardableResult
    public func send(_ frame: [UInt8], flags: ZMQSendFlags = []) throws(ZMQError) -> Bool {
        let handle = try liveHandle("send")
        let sent = try ZMQCall.checkAllowingWouldBlock("zmq_send", operation: "send on \(kind) socket") {
            frame.withUnsafeBytes { zmq_send(handle, $0.baseAddress, $0.count, flags.rawValue) }
        }
        if sent != nil { return true }
        if flags.contains(.dontWait) { return false }
        throw ZMQCall.error(errno: EAGAIN, function: "zmq_send", operation: "send on \(kind) socket")
    }

    /// Sends one frame holding the UTF-8 bytes of `frame`; see ``send(_:flags:)-(UnsafeRawBufferPointer,_)``.
    @inline(__always)
    @discardableResult
    public func send(_ frame: String, flags: ZMQSendFlags = []) throws(ZMQError) -> Bool {
        let handle = try liveHandle("send")
        var frame = frame
        let sent = try ZMQCall.checkAllowingWouldBlock("zmq_send", operation: "send on \(kind) socket") {
            frame.withUTF8 { zmq_send(handle, $0.baseAddress, $0.count, flags.rawValue) }
        }
        if sent != nil { return true }
        if flags.contains(.dontWait) { return false }
        throw ZMQCall.error(errno: EAGAIN, function: "zmq_send", operation: "send on \(kind) socket")
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
