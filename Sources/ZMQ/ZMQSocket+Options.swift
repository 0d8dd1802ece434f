import CZMQ

extension ZMQSocket {
    /// Sets a typed option; see ``ZMQSocketOption`` for the list. Set options before bind/connect.
    public func setOption<Value>(_ option: ZMQSocketOption<Value>, _ value: Value) throws(ZMQError) {
        let handle = try liveHandle("set \(option.label)")
        let encoded = option.encode(value)
        let operation = "set \(option.label) = \(value) on \(kind) socket"
        if option.isInt64 {
            var raw = encoded
            _ = try ZMQCall.check("zmq_setsockopt", operation: operation) {
                zmq_setsockopt(handle, option.name, &raw, MemoryLayout<Int64>.size)
            }
        } else {
            var raw = Int32(truncatingIfNeeded: encoded)
            _ = try ZMQCall.check("zmq_setsockopt", operation: operation) {
                zmq_setsockopt(handle, option.name, &raw, MemoryLayout<Int32>.size)
            }
        }
    }

    /// Reads a typed option. Write-only options (router-mandatory, xpub-verbose) throw
    /// ``ZMQError/Code/invalidArgument``.
    public func option<Value>(_ option: ZMQSocketOption<Value>) throws(ZMQError) -> Value {
        if option.isInt64 { return option.decode(try getInt64(option.name, label: option.label)) }
        return option.decode(Int64(try getInt32(option.name, label: option.label)))
    }

    /// Adds a subscription: messages whose first frame starts with `prefix` are delivered
    /// (SUB/XSUB; the empty prefix matches everything). Prefix matching means `node/a` also
    /// matches `node/ab`: end topics with a separator.
    public func subscribe(_ prefix: [UInt8]) throws(ZMQError) {
        try setBytes(ZMQ_SUBSCRIBE, prefix, label: "subscribe")
    }

    /// Adds a subscription to the UTF-8 bytes of `prefix`; see ``subscribe(_:)-([UInt8])``.
    public func subscribe(_ prefix: String) throws(ZMQError) {
        try subscribe(Array(prefix.utf8))
    }

    /// Removes one earlier ``subscribe(_:)-([UInt8])`` of the same prefix.
    public func unsubscribe(_ prefix: [UInt8]) throws(ZMQError) {
        try setBytes(ZMQ_UNSUBSCRIBE, prefix, label: "unsubscribe")
    }

    /// Removes one earlier subscription to the UTF-8 bytes of `prefix`.
    public func unsubscribe(_ prefix: String) throws(ZMQError) {
        try unsubscribe(Array(prefix.utf8))
    }

    /// Adds a subscription to the bytes of `prefix` read in place (no array to build per call).
    public func subscribe(bytes prefix: UnsafeRawBufferPointer) throws(ZMQError) {
        try setRawBytes(ZMQ_SUBSCRIBE, prefix, label: "subscribe")
    }

    /// Removes one earlier subscription to the bytes of `prefix`, read in place.
    public func unsubscribe(bytes prefix: UnsafeRawBufferPointer) throws(ZMQError) {
        try setRawBytes(ZMQ_UNSUBSCRIBE, prefix, label: "unsubscribe")
    }

    /// The identity this socket announces to a ROUTER peer (`ZMQ_ROUTING_ID`, 1–255 bytes);
    /// set before connect.
    public func setRoutingID(_ id: [UInt8]) throws(ZMQError) {
        try setBytes(ZMQ_ROUTING_ID, id, label: "routingID")
    }

    /// The socket's own file descriptor for event loops (`ZMQ_FD`).
    ///
    /// Edge-like: it becomes readable when *something* happened. After it fires, and after every
    /// send/receive of your own, read ``events`` and drain with non-blocking receives until nil.
    public var fileDescriptor: Int32 {
        get throws(ZMQError) { try getInt32(ZMQ_FD, label: "fileDescriptor") }
    }

    /// What the socket can do right now without blocking (`ZMQ_EVENTS`). Reading it also makes
    /// the socket process pending commands (new peers, subscriptions, pipe credit).
    public var events: ZMQPollEvents {
        get throws(ZMQError) { ZMQPollEvents(rawValue: Int16(truncatingIfNeeded: try getInt32(ZMQ_EVENTS, label: "events"))) }
    }

    private func getInt32(_ name: Int32, label: String) throws(ZMQError) -> Int32 {
        let handle = try liveHandle("get \(label)")
        var value: Int32 = 0
        var size = MemoryLayout<Int32>.size
        _ = try ZMQCall.check("zmq_getsockopt", operation: "get \(label) on \(kind) socket") {
            zmq_getsockopt(handle, name, &value, &size)
        }
        return value
    }

    private func getInt64(_ name: Int32, label: String) throws(ZMQError) -> Int64 {
        let handle = try liveHandle("get \(label)")
        var value: Int64 = 0
        var size = MemoryLayout<Int64>.size
        _ = try ZMQCall.check("zmq_getsockopt", operation: "get \(label) on \(kind) socket") {
            zmq_getsockopt(handle, name, &value, &size)
        }
        return value
    }

    private func setRawBytes(_ name: Int32, _ bytes: UnsafeRawBufferPointer, label: String) throws(ZMQError) {
        let handle = try liveHandle(label)
        _ = try ZMQCall.check("zmq_setsockopt", operation: "\(label) on \(kind) socket") {
            zmq_setsockopt(handle, name, bytes.baseAddress, bytes.count)
        }
    }

    private func setBytes(_ name: Int32, _ bytes: [UInt8], label: String) throws(ZMQError) {
        let handle = try liveHandle(label)
        _ = try ZMQCall.check("zmq_setsockopt", operation: "\(label) on \(kind) socket") {
            bytes.withUnsafeBytes { zmq_setsockopt(handle, name, $0.baseAddress, $0.count) }
        }
    }
}
