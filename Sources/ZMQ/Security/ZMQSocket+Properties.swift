import CZMQ

extension ZMQSocket {
    /// A metadata property of the message received last (`zmq_msg_gets` on its last frame), e.g.
    /// `"User-Id"` (what the ZAP handler answered for the sender's connection), `"Peer-Address"`,
    /// `"Socket-Type"`. nil when the message has no such property or nothing was received yet.
    /// Valid until the next receive on this socket.
    public func receivedProperty(_ name: String) -> String? {
        guard !isClosed, frames.initialized > 0 else { return nil }
        // After a receive, slot 0 holds the message's last frame (see ZMQFramePool.didReceiveMessage).
        guard let value = zmq_msg_gets(ZMQFramePool.message(frames.slots[0]), name) else { return nil }
        let text = String(cString: value)
        return text.utf8.count <= 1024 ? text : nil
    }
}
