import ZMQ

/// What a control connection's monitor reported, reduced to what explains a missing reply.
///
/// CURVE failures are silent at the socket: the request just gets no answer. The events tell
/// them apart from a node that is down (no TCP connection at all) or busy (a completed handshake):
/// * ZAP status 400: the node's operators file does not list our key;
/// * a mechanism mismatch: one side speaks CURVE and the other does not (or, for a plain client,
///   connections the node closes during the handshake: it noticed first);
/// * a TCP connection the node closes before the handshake completes, while we speak CURVE: the
///   node could not open our hello, sealed for the key the cluster file gives — it holds another.
struct ConnectionEvents: Equatable {
    private(set) var connected = false
    private(set) var disconnected = false
    private(set) var handshakeSucceeded = false
    private(set) var authStatus: UInt32?
    private(set) var mechanismMismatch = false
    private(set) var cryptographicError = false

    mutating func record(_ events: [ZMQMonitorEvent]) {
        for event in events {
            switch event.kind {
            case .connected: connected = true
            case .disconnected: disconnected = true
            case .handshakeSucceeded: handshakeSucceeded = true
            case .handshakeFailedAuth: authStatus = event.value
            case .handshakeFailedProtocol:
                if event.value == ZMQMonitorEvent.mechanismMismatch { mechanismMismatch = true } else { cryptographicError = true }
            default: break
            }
        }
    }

    /// Whether our side failed to open the node's handshake (it answered, sealed for another key).
    var sawCryptographicError: Bool { cryptographicError }

    /// Whether the events already explain a failure that waiting will not mend (the node said no).
    func isDefinitive(secured: Bool) -> Bool {
        authStatus != nil || mechanismMismatch
    }

    /// Why there was no reply, when the events say; nil: the node is down or did not answer.
    func diagnosis(secured: Bool) -> NodeRequestError.Kind? {
        if let authStatus { return .keyRefused(status: authStatus) }
        if mechanismMismatch { return secured ? .nodeNotSecured : .nodeRequiresCurve }
        if handshakeSucceeded { return nil }
        if secured && (cryptographicError || (connected && disconnected)) { return .serverKeyMismatch }
        // A plain client whose every connection closes during the handshake: the node saw the
        // mismatch first and hung up before ours was reported (a plain node never does that).
        if !secured && connected && disconnected { return .closedDuringHandshake }
        return nil
    }
}
